//! Issue 47, lean down the spine (seed 002 §5.4, §7.2): the shared knight's lean is spread
//! from its pelvis up to its head with weights that fall from the head down (each joint's
//! share within 5 % of its weight), its hips and legs hang from the pelvis as drawn, and its
//! arms hang plumb from their shoulders while the body leans into a turn.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;
use common::*;

use glam::{Affine3A, Quat, Vec3, Vec3A};
use skitter::model::{default_weights, BindSpec, BoundModel, PoseInput, SpineSpec};

fn knight(spine: SpineSpec) -> Result<BoundModel, String> {
    let m = load_in(&assets().join("knight"), "knight.glb", None)?;
    BoundModel::new(
        std::sync::Arc::new(m),
        &BindSpec {
            scale: 1.0,
            spine,
            ..BindSpec::default()
        },
        None,
    )
}

/// The knight posed facing `yaw` with `lean` (body space), nothing else solved: every
/// joint's world rotation.
fn pose(b: &BoundModel, yaw: Quat, lean: Quat, spine: Option<&[f32]>) -> Vec<Quat> {
    let rot = yaw * lean;
    let (mut world, mut skin) = (Vec::new(), Vec::new());
    b.posed.pose(
        &PoseInput {
            body: Affine3A::from_rotation_translation(rot, Vec3::new(1.0, 1.0, 2.0)),
            body_rotation: rot,
            lean,
            spine,
            ..Default::default()
        },
        &mut world,
        &mut skin,
    );
    world
        .iter()
        .map(|m| m.to_scale_rotation_translation().1)
        .collect()
}

#[test]
fn the_knights_lean_is_spread_from_the_pelvis_up_with_falling_weights() {
    let b = knight(SpineSpec::default()).expect("knight");
    let names: Vec<&str> = b
        .spine
        .joints
        .iter()
        .map(|j| b.model.joints[*j].name.as_str())
        .collect();
    assert_eq!(names, ["hips", "spine", "chest", "head"]);
    let weights = default_weights(4);
    assert_eq!(b.spine.weights, weights);
    assert!(
        b.describe()
            .contains("spine (the lean spread from the pelvis up): hips 12%"),
        "{}",
        b.describe()
    );
    for (lean_deg, lean_axis) in [
        (20.0f32, Vec3::Z),
        (-12.0, Vec3::X),
        (15.0, Vec3::new(1.0, 0.0, 1.0)),
    ] {
        let lean = Quat::from_axis_angle(lean_axis.normalize(), lean_deg.to_radians());
        let yaw = Quat::from_rotation_y(0.7);
        let leaned = pose(&b, yaw, lean, None);
        let upright = pose(&b, yaw, Quat::IDENTITY, None);
        let mut total = 0.0;
        for (k, j) in b.spine.joints.iter().enumerate() {
            // Each joint's turn relative to its parent, against the upright pose's.
            let rel = |w: &[Quat]| match b.model.joints[*j].parent {
                Some(p) if k > 0 => w[p].inverse() * w[*j],
                _ => w[*j],
            };
            let turn = rel(&upright).inverse() * rel(&leaned);
            let share = turn.angle_between(Quat::IDENTITY).to_degrees() / lean_deg.abs();
            total += share;
            assert!(
                (share - weights[k]).abs() < 0.05,
                "lean {lean_deg}° about {lean_axis}: {} takes {:.3}, its weight {:.3}",
                names[k],
                share,
                weights[k]
            );
        }
        let head = b.spine.joints[3];
        let whole = (upright[head].inverse() * leaned[head])
            .angle_between(Quat::IDENTITY)
            .to_degrees();
        assert!(
            (whole - lean_deg.abs()).abs() < 0.3 && (total - 1.0).abs() < 0.02,
            "the head ends with the whole lean: {whole:.2}° of {lean_deg}° (shares sum {total:.3})"
        );
    }
    // A creature's own shares (the inspector's spine sliders): even, each joint a quarter.
    let lean = Quat::from_rotation_z(20f32.to_radians());
    let yaw = Quat::from_rotation_y(-0.3);
    let even = [0.25f32; 4];
    let (leaned, upright) = (
        pose(&b, yaw, lean, Some(&even)),
        pose(&b, yaw, Quat::IDENTITY, None),
    );
    for (k, j) in b.spine.joints.iter().enumerate() {
        let rel = |w: &[Quat]| match b.model.joints[*j].parent {
            Some(p) if k > 0 => w[p].inverse() * w[*j],
            _ => w[*j],
        };
        let share = (rel(&upright).inverse() * rel(&leaned))
            .angle_between(Quat::IDENTITY)
            .to_degrees()
            / 20.0;
        assert!(
            (share - 0.25).abs() < 0.02,
            "{}: {share:.3} of an even spine",
            names[k]
        );
    }
    // Off: a plank, the pelvis carrying it all.
    let plank = knight(SpineSpec {
        off: true,
        weights: None,
    })
    .expect("knight");
    assert!(plank.spine.joints.is_empty());
    // Weights of the wrong length are an error naming the spine.
    let err = knight(SpineSpec {
        off: false,
        weights: Some(vec![1.0, 2.0]),
    })
    .unwrap_err();
    assert!(
        err.contains("2 weights for a spine of 4 joints (hips, spine, chest, head)"),
        "{err}"
    );
}

#[test]
fn the_fox_and_the_spiders_keep_a_rigid_torso() {
    // Legs hang from the torso above the pelvis: nothing to spread.
    let m = load_in(&assets().join("fox"), "fox.glb", None).expect("fox");
    let fox = BoundModel::new(
        std::sync::Arc::new(m),
        &BindSpec {
            scale: 0.01,
            ..BindSpec::default()
        },
        None,
    )
    .expect("fox");
    assert!(fox.spine.joints.is_empty(), "{:?}", fox.spine);
}

/// A mod with the shared knight walking circles at 1.2 m/s, turning 100°/s.
fn circling_knight(dir: &std::path::Path) -> std::path::PathBuf {
    let m = dir.join("circles");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    std::fs::copy(
        assets().join("knight/knight.glb"),
        m.join("assets/knight.glb"),
    )
    .expect("copy");
    std::fs::write(
        m.join("mod.toml"),
        "name = \"circles\"\nversion = \"0.1.0\"\n",
    )
    .expect("toml");
    std::fs::write(
        m.join("main.lua"),
        r#"
world.ground { size = vec3(40, 0, 40) }
behaviour.define {
  name = "circle",
  on_update = function(self, dt)
    local t = world.time()
    local a = if t < 2 then 0 else math.rad(100) * (t - 2)
    self:move(vec3(math.sin(a), 0, math.cos(a)), 1.2)
  end,
}
creature.define {
  name = "knight",
  model = { file = "assets/knight.glb" },
  lean = { turn = { gain = 0.15, max = 20 } },
  behaviour = "circle",
}
world.spawn("knight", { position = vec3(0, 0, -4) })
"#,
    )
    .expect("main");
    m
}

#[test]
fn a_knight_leaning_into_a_turn_walks_well_with_its_hands_hanging() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = circling_knight(dir.path());
    let (out, t) = run_trace(dir.path(), 480, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    assert_walks_well("circling knight", &t, &[("circles/knight", 1)]);
    let lines = by_id(&trace_text(dir.path()));
    let (_, recs) = lines.iter().next().expect("the knight");
    let mut leaning = 0;
    let mut worst: f64 = 0.0;
    for r in recs {
        let roll = r["lean"]["roll"].as_f64().unwrap_or(0.0);
        if roll.abs() < 8.0 {
            continue;
        }
        leaning += 1;
        // Each hand from its shoulder, in the upright plane across the heading.
        let f = v3(&r["fwd"]);
        let left = [f[2], 0.0, -f[0]];
        let n = (left[0] * left[0] + left[2] * left[2]).sqrt();
        let mut lateral = Vec::new();
        for (h, s) in r["hands"]
            .as_array()
            .expect("hands")
            .iter()
            .zip(r["shoulders"].as_array().expect("shoulders"))
        {
            let (h, s) = (v3(h), v3(s));
            let d = [h[0] - s[0], h[1] - s[1], h[2] - s[2]];
            let across = (d[0] * left[0] + d[2] * left[2]) / n;
            lateral.push(across.atan2(-d[1]).to_degrees());
        }
        // The arms splay out a little each side (mirrored): their mean is the lean's effect.
        let mean = (lateral[0] + lateral[1]) / 2.0;
        worst = worst.max(mean.abs());
        for a in &lateral {
            assert!(
                a.abs() < 10.0,
                "a hand {a:.1}° off vertical at roll {roll:.1}°"
            );
        }
    }
    assert!(
        leaning > 100,
        "the knight leaned into its turn ({leaning} frames past 8°)"
    );
    assert!(
        worst < 1.0,
        "the hands hang plumb while the body rolls: {worst:.2}° (without the correction, the roll)"
    );
}

#[test]
fn the_knights_legs_and_arms_hang_from_its_pelvis_and_shoulders_as_drawn() {
    let b = knight(SpineSpec::default()).expect("knight");
    let lean =
        Quat::from_rotation_z(18f32.to_radians()) * Quat::from_rotation_x(-8f32.to_radians());
    let rot = Quat::from_rotation_y(-0.4) * lean;
    let body = Affine3A::from_rotation_translation(rot, Vec3::new(0.5, 1.0, -1.0));
    // Each limb's bind-pose joints (and tip) where the sim's fully leaned body puts them:
    // what the locomotion would solve for a body that does not move its limbs.
    let (points, lens) = bound_limb_points(&b, body);
    let (mut world, mut skin) = (Vec::new(), Vec::new());
    b.posed.pose(
        &PoseInput {
            body,
            body_rotation: rot,
            lean,
            points: &points,
            chain_lens: &lens,
            ..Default::default()
        },
        &mut world,
        &mut skin,
    );
    let mut at = 0;
    for (c, chain) in b.binding.legs.iter().chain(&b.binding.arms).enumerate() {
        let root = chain.bones[0];
        let parent = b.model.joints[root]
            .parent
            .expect("a limb hangs from a joint");
        // Where its parent, as drawn, carries the limb's root joint.
        let local =
            Affine3A::from_mat4(b.model.joints[parent].bind.inverse() * b.model.joints[root].bind);
        let carried = (world[parent] * local).translation;
        let drawn = world[root].translation;
        assert!(
            carried.distance(drawn) < 1e-4,
            "{}: its root is drawn {:.4} m from where {} carries it",
            chain.name,
            carried.distance(drawn),
            b.model.joints[parent].name
        );
        let tip = b.posed.tip(c, &world).expect("tip");
        let solved = points[at + lens[c] - 1];
        if c < b.binding.legs.len() {
            assert!(
                tip.distance(solved) < 1e-3,
                "{}: the foot left where it stands by {:.4} m",
                chain.name,
                tip.distance(solved)
            );
        } else {
            // The hand hangs from the shoulder as the sim solved it, moved with the shoulder.
            let shift = drawn - Vec3A::from(points[at]);
            assert!(
                Vec3A::from(tip).distance(Vec3A::from(solved) + shift) < 1e-3,
                "{}: the hand did not move with its shoulder",
                chain.name
            );
        }
        at += lens[c];
    }
}

/// A head's turn (its counter-yaw, a look at something) is shared with its neck where the
/// head hangs from one that carries no leg: the fox's `b_Neck_04`, the knight's chest (its
/// arms come with it, hung from their shoulders as drawn). The neck takes 40 %, the head
/// ends with all of it.
#[test]
fn a_look_turns_the_neck_as_well_as_the_head() {
    let fox = {
        let m = load_in(&assets().join("fox"), "fox.glb", None).expect("fox");
        let spec = BindSpec {
            scale: 0.01,
            ..BindSpec::default()
        };
        BoundModel::new(std::sync::Arc::new(m), &spec, None).expect("fox")
    };
    let knight = knight(SpineSpec::default()).expect("knight");
    for (b, neck_name) in [(&fox, "b_Neck_04"), (&knight, "chest")] {
        let head = b.binding.head.expect("a head");
        let neck = b.model.joints[head].parent.expect("a neck");
        assert_eq!(b.model.joints[neck].name, neck_name);
        let body = Quat::from_rotation_y(0.5);
        let look = Quat::from_rotation_y(60f32.to_radians()) * Quat::from_rotation_x(-0.3);
        let posed = |h: Option<Quat>| {
            let (mut world, mut skin) = (Vec::new(), Vec::new());
            b.posed.pose(
                &PoseInput {
                    body: Affine3A::from_quat(body),
                    head: h,
                    body_rotation: body,
                    ..Default::default()
                },
                &mut world,
                &mut skin,
            );
            world
                .iter()
                .map(|m| m.to_scale_rotation_translation().1)
                .collect::<Vec<_>>()
        };
        let (still, looking) = (posed(None), posed(Some(look * body)));
        let angle = |q: Quat| q.angle_between(Quat::IDENTITY).to_degrees();
        let whole = angle(look);
        let neck_turn = angle(still[neck].inverse() * looking[neck]);
        let head_turn = angle(looking[head] * still[head].inverse());
        assert!(
            (neck_turn - 0.4 * whole).abs() < 1.0,
            "{neck_name}: {neck_turn:.1}° of {whole:.1}°"
        );
        assert!(
            (head_turn - whole).abs() < 0.5,
            "the head ends with the whole turn: {head_turn:.1}° of {whole:.1}°"
        );
    }
}

/// `body.breathe` on a model with a spine: the chest joints lift with the breath (1.5° at
/// a full breath, shared), the head kept level; nothing without a breath.
#[test]
fn a_breath_lifts_the_knights_chest_and_keeps_its_head_level() {
    let b = knight(SpineSpec::default()).expect("knight");
    let body = Quat::from_rotation_y(1.1);
    let posed = |breath: f32| {
        let (mut world, mut skin) = (Vec::new(), Vec::new());
        b.posed.pose(
            &PoseInput {
                body: Affine3A::from_quat(body),
                body_rotation: body,
                breath,
                ..Default::default()
            },
            &mut world,
            &mut skin,
        );
        world
    };
    let (still, full) = (posed(0.0), posed(1.0));
    let rot = |w: &[Affine3A], j: usize| w[j].to_scale_rotation_translation().1;
    let joints = &b.spine.joints;
    let rel = |w: &[Affine3A], k: usize| {
        let j = joints[k];
        rot(w, b.model.joints[j].parent.expect("parent")).inverse() * rot(w, j)
    };
    for k in 1..joints.len() - 1 {
        let turn = (rel(&still, k).inverse() * rel(&full, k))
            .angle_between(Quat::IDENTITY)
            .to_degrees();
        assert!(
            (turn - 0.75).abs() < 0.05,
            "chest joint {k} turned {turn:.3}°"
        );
    }
    let head = *joints.last().expect("head");
    let level = (rot(&still, head).inverse() * rot(&full, head))
        .angle_between(Quat::IDENTITY)
        .to_degrees();
    assert!(level < 0.1, "the head stays level: {level:.3}°");
    let moved = still[head].translation.distance(full[head].translation);
    assert!(moved > 1e-3, "the head rides up on the chest: {moved:.4} m");
    // The pelvis does not breathe here (the body's own breath rises it in the sim).
    let pelvis = rot(&still, joints[0]).angle_between(rot(&full, joints[0]));
    assert!(pelvis < 1e-3, "the pelvis turned {pelvis}");
}
