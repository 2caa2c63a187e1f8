//! Issue 47, feet: a model's foot and toe bones lie on the slope under a planted foot, and
//! a leg that trails peels its heel first (`model::feet`), on the shared knight's skeleton.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;
use common::*;

use glam::{Affine3A, Quat, Vec3};
use skitter::model::{BoundModel, FootInput, PoseInput};

fn knight() -> BoundModel {
    bound_asset("knight", "knight.glb", None)
}

/// The knight posed upright, its body 12 cm lower than its bind pose (knees bent, as it
/// stands), with its left foot's end moved by `reach` (body space) from where the bind pose
/// has it and the ground's normal `slope` under it: the drawn joint heads of its left leg
/// (hip, knee, ankle, ball) and the foot's drawn end.
fn left_leg(b: &BoundModel, reach: Vec3, slope: Vec3) -> (Vec<Vec3>, Vec3) {
    let stood = Affine3A::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let body = Affine3A::from_translation(Vec3::new(0.0, 0.88, 0.0));
    let fix = Affine3A::from_mat4(b.binding.fix);
    let mut points = Vec::new();
    let mut lens = Vec::new();
    for (c, chain) in b.binding.legs.iter().chain(&b.binding.arms).enumerate() {
        let start = points.len();
        for j in &chain.bones {
            points.push(body.transform_point3(fix.transform_point3(b.model.joints[*j].head())));
        }
        let tip = stood.transform_point3(fix.transform_point3(chain.tip));
        points.push(if c == 0 { tip + reach } else { tip });
        lens.push(points.len() - start);
    }
    let feet: Vec<FootInput> = b
        .binding
        .legs
        .iter()
        .map(|_| FootInput {
            slope,
            grounded: true,
        })
        .collect();
    let (mut world, mut skin) = (Vec::new(), Vec::new());
    b.posed.pose(
        &PoseInput {
            body,
            body_rotation: Quat::IDENTITY,
            points: &points,
            chain_lens: &lens,
            feet: &feet,
            ..Default::default()
        },
        &mut world,
        &mut skin,
    );
    let leg = &b.binding.legs[0];
    let heads = leg
        .bones
        .iter()
        .map(|j| Vec3::from(world[*j].translation))
        .collect();
    (heads, b.posed.tip(0, &world).expect("tip"))
}

#[test]
fn the_knights_foot_lies_on_the_slope_and_peels_its_heel_when_it_trails() {
    let b = knight();
    let leg = &b.binding.legs[0];
    let names: Vec<&str> = leg
        .bones
        .iter()
        .map(|j| b.model.joints[*j].name.as_str())
        .collect();
    assert_eq!(names, ["upperleg.l", "lowerleg.l", "foot.l", "toes.l"]);
    // Flat, standing where the bind pose stands: the foot and toes as the bind pose has them.
    let fix = Affine3A::from_mat4(b.binding.fix);
    let bind = |j: usize| fix.transform_point3(b.model.joints[leg.bones[j]].head());
    let bind_tip = fix.transform_point3(leg.tip);
    let (flat, tip) = left_leg(&b, Vec3::ZERO, Vec3::Y);
    let angle = |a: Vec3, b: Vec3| a.angle_between(b).to_degrees();
    assert!(
        angle(tip - flat[3], bind_tip - bind(3)) < 0.5,
        "toes as bound"
    );
    assert!(
        angle(flat[3] - flat[2], bind(3) - bind(2)) < 0.5,
        "foot as bound"
    );
    // A slope rising 20° ahead: the foot and toes turned onto it, the foot's end kept.
    let turn = Quat::from_rotation_x(-20f32.to_radians());
    let (on, tip_on) = left_leg(&b, Vec3::ZERO, turn * Vec3::Y);
    assert!(
        angle(tip_on - on[3], turn * (bind_tip - bind(3))) < 0.5,
        "toes along the slope: {:.2}°, heel {:.3} vs {:.3}",
        angle(tip_on - on[3], turn * (bind_tip - bind(3))),
        on[2].y,
        flat[2].y
    );
    assert!(
        angle(on[3] - on[2], turn * (bind(3) - bind(2))) < 0.5,
        "foot along the slope: {:.2}° (ankle {} ball {} hip {} tip {})",
        angle(on[3] - on[2], turn * (bind(3) - bind(2))),
        on[2],
        on[3],
        on[0],
        tip_on
    );
    assert!(
        tip_on.distance(tip) < 1e-4,
        "the foot's end stays where it stands"
    );
    // Trailing behind the hip (the foot about to lift): the heel peels, the ball stays down.
    let (back, tip_back) = left_leg(&b, Vec3::new(0.0, 0.0, -0.3), Vec3::Y);
    let heel_up = back[2].y - flat[2].y;
    assert!(heel_up > 0.01, "the heel peels: {heel_up:.3} m");
    assert!(
        (back[3].y - flat[3].y).abs() < 0.005,
        "the ball stays down while the heel peels"
    );
    assert!(tip_back.distance(tip + Vec3::new(0.0, 0.0, -0.3)) < 1e-3);
}

/// A generated creature's feet (the bundled hound's: a generated model of four legs ends
/// each in a pad): walking up a 15° slope, a planted foot's sole lies on the slope, and a
/// foot about to lift has peeled its heel up first (more than 5° off the slope, 15° on
/// average: a hind foot trails farther than a fore foot).
#[test]
fn a_generated_hound_lays_its_pads_on_the_slope_and_peels_its_heels() {
    use skitter::script::{HostOptions, ScriptHost};
    use skitter::sim::{pose_creature, PoseScratch};
    let dir = tempfile::tempdir().expect("tmp");
    let main = r#"
local rows = {}
local t = math.tan(math.rad(15))
for i = 0, 40 do
  rows[i + 1] = {}
  for j = 0, 20 do rows[i + 1][j + 1] = t * (i - 20) end
end
world.ground { size = vec3(20, 0, 40), heights = rows }
behaviour.define { name = "up", on_update = function(self, dt) self:move(vec3(0, 0, 1), 0.7) end }
world.spawn("menagerie/hound", { position = vec3(0, -2.6, -10), behaviour = "up" })
"#;
    let m = temp_mod(
        dir.path(),
        "uphill",
        &[
            (
                "mod.toml",
                "name = \"uphill\"\nversion = \"0.1.0\"\ndepends = [\"menagerie\"]\n",
            ),
            ("main.lua", main),
        ],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[bundled("spider"), bundled("menagerie"), m]);
    assert!(host.take_errors().is_empty());
    let slope = Vec3::new(0.0, 1.0, -(15f32.to_radians().tan())).normalize();
    let mut scratch = PoseScratch::default();
    let (mut flat, mut planted, mut peeled_before_lift) = (0usize, 0usize, 0usize);
    let mut lifts = 0usize;
    let mut was_down = [true; 4];
    let mut peel_before = [0.0f32; 4];
    let mut peels = Vec::new();
    for tick in 0..600 {
        host.tick();
        if tick < 120 {
            continue;
        }
        let w = host.world();
        let c = &w.creatures()[0];
        let model = w
            .creature_type(c.type_id)
            .and_then(|t| t.model.as_deref())
            .expect("a generated model");
        pose_creature(c, model, 0.0, &mut scratch);
        for (leg, st) in c.loco.legs.iter().enumerate() {
            let name = format!("{}.pad", model.binding.legs[leg].name);
            let j = model
                .model
                .joints
                .iter()
                .position(|x| x.name == name)
                .unwrap_or_else(|| panic!("no joint {name}"));
            let pad = scratch.world[j];
            let up = Vec3::from(pad.matrix3 * glam::Vec3A::Y).normalize();
            let fwd = Vec3::from(pad.matrix3 * glam::Vec3A::Z).normalize();
            // How far the heel has peeled up off the slope (degrees): the sole's forward
            // dipping into it.
            let peel = (-fwd.dot(slope)).clamp(-1.0, 1.0).asin().to_degrees();
            let hip = st.hip;
            // Behind its hip by less than a twentieth of the leg (level with the world): no
            // peel.
            let heading = c.loco.rotation() * Vec3::Z;
            let heading = Vec3::new(heading.x, 0.0, heading.z).normalize();
            let ahead = (st.foot - hip).dot(heading) > -0.03;
            if st.grounded && ahead {
                planted += 1;
                if up.angle_between(slope).to_degrees() < 2.0 {
                    flat += 1;
                }
            }
            if was_down[leg] && !st.grounded {
                lifts += 1;
                if peel_before[leg] > 5.0 {
                    peeled_before_lift += 1;
                }
                peels.push(peel_before[leg]);
            }
            was_down[leg] = st.grounded;
            peel_before[leg] = peel;
        }
    }
    assert!(planted > 200, "{planted} planted pad-frames");
    assert!(
        flat as f64 >= 0.95 * planted as f64,
        "{flat} of {planted} planted pads (foot ahead of the hip) lie within 2° of the slope"
    );
    assert!(lifts > 20, "{lifts} lifts");
    assert!(
        peeled_before_lift as f64 >= 0.9 * lifts as f64,
        "{peeled_before_lift} of {lifts} feet had peeled their heel before lifting"
    );
    let mean = peels.iter().sum::<f32>() / peels.len() as f32;
    eprintln!("pads: {flat} of {planted} planted flat; peel at lift-off {mean:.1}° on average");
    assert!(mean > 15.0, "peeled {mean:.1}° at lift-off on average");
}

/// The hound exported (`skitter export`) and loaded back: its legs as they were, each pad
/// following its leg's end (not taken for a leg, nor swung on a spring).
#[test]
fn an_exported_hound_loads_back_with_its_pads_on_its_feet() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("back");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    let glb = m.join("assets/hound.glb");
    let out = skitter(&[
        "export",
        "hound",
        glb.to_str().expect("path"),
        bundled("spider").to_str().expect("path"),
        bundled("menagerie").to_str().expect("path"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::write(m.join("mod.toml"), "name = \"back\"\nversion = \"0.1.0\"\n").expect("w");
    std::fs::write(
        m.join("main.lua"),
        "creature.define { name = \"h\", model = { file = \"assets/hound.glb\" } }\n",
    )
    .expect("w");
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    for leg in ["FL", "FR", "BL", "BR"] {
        assert!(
            said.contains(&format!(
                "{leg} = {leg}.1 > {leg}.2 (2 bones, 0.600 m, tip on \"{leg}.pad\")"
            )),
            "{said}"
        );
    }
    assert!(!said.contains("pad (1 bones)"), "{said}");
}
