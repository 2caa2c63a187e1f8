//! The binder's passes on small synthetic skeletons.

use super::*;
use crate::model::{Joint, Primitive};

/// A skeleton from `(name, parent, head)` joints, each carrying one vertex at its head
/// (plus `tips`: more vertices, each wholly on a joint), for the binder.
fn skeleton(joints: &[(&str, Option<usize>, Vec3)], tips: &[(usize, Vec3)]) -> Model {
    let mut js: Vec<Joint> = joints
        .iter()
        .map(|(name, parent, head)| Joint {
            name: name.to_string(),
            parent: *parent,
            bind: Mat4::from_translation(*head),
            inverse_bind: Mat4::from_translation(-*head),
            children: Vec::new(),
            reach: 0.0,
            far: *head,
        })
        .collect();
    for j in 0..js.len() {
        if let Some(p) = js[j].parent {
            js[p].children.push(j);
        }
    }
    let mut verts: Vec<(Vec3, usize)> = joints.iter().enumerate().map(|(i, j)| (j.2, i)).collect();
    verts.extend(tips.iter().map(|(j, v)| (*v, *j)));
    for (v, j) in &verts {
        let d = v.distance(js[*j].head());
        if d > js[*j].reach {
            js[*j].reach = d;
            js[*j].far = *v;
        }
    }
    let lo = verts
        .iter()
        .fold(Vec3::splat(f32::MAX), |a, (v, _)| a.min(*v));
    let hi = verts
        .iter()
        .fold(Vec3::splat(f32::MIN), |a, (v, _)| a.max(*v));
    let n = verts.len();
    Model {
        source: "test/x.gltf".into(),
        joints: js,
        primitives: vec![Primitive {
            positions: verts.iter().map(|(v, _)| v.to_array()).collect(),
            normals: vec![[0.0, 1.0, 0.0]; n],
            uvs: vec![[0.0; 2]; n],
            colors: vec![[1.0; 4]; n],
            joints: verts.iter().map(|(_, j)| [*j as u16, 0, 0, 0]).collect(),
            weights: vec![[1.0, 0.0, 0.0, 0.0]; n],
            indices: Vec::new(),
            material: 0,
            rigid: false,
        }],
        materials: Vec::new(),
        clips: Vec::new(),
        animations: Vec::new(),
        bounds: (lo, hi),
        plan_record: None,
        repairs: Vec::new(),
        from_nodes: false,
        lods: Vec::new(),
    }
}

/// A body with four two-bone legs (hip, knee; the foot a vertex on the ground), named
/// by `names` front-left, front-right, back-left, back-right.
fn four_legs(names: [&str; 4]) -> Model {
    let mut joints = vec![("Body", None, Vec3::new(0.0, 0.5, 0.0))];
    let mut tips = Vec::new();
    for (k, (x, z)) in [(0.2f32, 0.3f32), (-0.2, 0.3), (0.2, -0.3), (-0.2, -0.3)]
        .iter()
        .enumerate()
    {
        let hip = joints.len();
        joints.push((names[k], Some(0), Vec3::new(*x, 0.5, *z)));
        joints.push(("knee", Some(hip), Vec3::new(x * 2.0, 0.6, *z)));
        tips.push((hip + 1, Vec3::new(x * 2.5, 0.0, *z)));
    }
    let named: Vec<(&str, Option<usize>, Vec3)> = joints;
    skeleton(&named, &tips)
}

fn leg_names(m: &Model) -> Vec<(String, String)> {
    let (b, _) = bind(m, &BindSpec::default()).expect("binds");
    b.legs
        .iter()
        .map(|l| (l.name.clone(), m.joints[l.bones[0]].name.clone()))
        .collect()
}

/// A body with `n` pairs of two-bone legs hanging plumb to the ground (hip, knee; the
/// foot a vertex below), with wings when `wings`.
fn plumb(n: usize, wings: bool) -> Model {
    let mut joints = vec![("Body", None, Vec3::new(0.0, 0.5, 0.0))];
    let mut tips = Vec::new();
    for k in 0..n {
        let z = 0.1 - 0.1 * k as f32;
        for x in [0.08f32, -0.08] {
            let hip = joints.len();
            let side = if x > 0.0 { "hip.L" } else { "hip.R" };
            joints.push((side, Some(0), Vec3::new(x, 0.45, z)));
            joints.push(("knee", Some(hip), Vec3::new(x * 1.2, 0.25, z)));
            tips.push((hip + 1, Vec3::new(x * 1.25, 0.0, z)));
        }
    }
    if wings {
        for x in [0.05f32, -0.05] {
            let w = joints.len();
            joints.push(("wing", Some(0), Vec3::new(x, 0.6, 0.0)));
            tips.push((w, Vec3::new(x * 8.0, 0.65, -0.1)));
        }
    }
    skeleton(&joints, &tips)
}

#[test]
fn winged_bodies_on_plumb_legs_fly_and_birds_walk() {
    let flies = |m: &Model| {
        let (b, p) = bind(m, &BindSpec::default()).expect("binds");
        assert_eq!(p.hover.is_some(), b.legs.is_empty());
        p.hover.map(|_| b.arms.len())
    };
    // Six plumb legs and wings: an insect in flight, its legs hanging as arms.
    assert_eq!(flies(&plumb(3, true)), Some(6));
    // No wings: a walker on stilts; two legs and wings: a bird, walking.
    assert_eq!(flies(&plumb(3, false)), None);
    assert_eq!(flies(&plumb(1, true)), None);
    // A define with body.hover makes a flyer of any; one with legs, a walker.
    let spec = |fly| BindSpec {
        fly: Some(fly),
        ..BindSpec::default()
    };
    let (b, p) = bind(&plumb(1, true), &spec(true)).expect("binds");
    assert!(p.hover.is_some() && b.arms.len() == 2 && b.legs.is_empty());
    let (b, p) = bind(&plumb(3, true), &spec(false)).expect("binds");
    assert!(p.hover.is_none() && b.legs.len() == 6);
}

#[test]
fn camel_case_sides_and_a_misnamed_mirror_bind_by_where_the_legs_are() {
    let want = |names: [&str; 4]| {
        vec![
            ("L1".to_string(), names[0].to_string()),
            ("R1".to_string(), names[1].to_string()),
            ("L2".to_string(), names[2].to_string()),
            ("R2".to_string(), names[3].to_string()),
        ]
    };
    let camel = [
        "leg0FrontLeft",
        "leg1FrontRight",
        "leg2BackLeft",
        "leg3BackRight",
    ];
    assert_eq!(leg_names(&four_legs(camel)), want(camel));
    // Blender's mirror copied without renaming: `LeftFront.001` on the right (named
    // by their words, all four were left legs).
    let mirror = ["LeftFront", "LeftFront.001", "LeftBack", "LeftBack.001"];
    assert_eq!(leg_names(&four_legs(mirror)), want(mirror));
}

/// A chain of joints `names` from `parent`, one after the other at `heads`, appended to
/// `joints`; returns the last's index.
fn chain<'a>(
    joints: &mut Vec<(&'a str, Option<usize>, Vec3)>,
    parent: usize,
    names: &[&'a str],
    heads: &[Vec3],
) -> usize {
    let mut p = parent;
    for (n, h) in names.iter().zip(heads) {
        joints.push((n, Some(p), *h));
        p = joints.len() - 1;
    }
    p
}

#[test]
fn free_chains_run_from_a_branch_to_a_free_tip_and_a_fork_of_claws_ends_one() {
    let mut joints = vec![("Body", None, Vec3::new(0.0, 0.5, 0.0))];
    let knee = chain(
        &mut joints,
        0,
        &["hip", "knee"],
        &[Vec3::new(0.2, 0.5, 0.0), Vec3::new(0.4, 0.3, 0.0)],
    );
    // Two short claws under the knee: the chain ends at the fork.
    chain(&mut joints, knee, &["clawA"], &[Vec3::new(0.42, 0.2, 0.02)]);
    chain(
        &mut joints,
        knee,
        &["clawB"],
        &[Vec3::new(0.42, 0.2, -0.02)],
    );
    // A tail of three with an end marker (no vertices) after it.
    let tail = chain(
        &mut joints,
        0,
        &["tail1", "tail2", "tail_end"],
        &[
            Vec3::new(0.0, 0.5, -0.2),
            Vec3::new(0.0, 0.45, -0.4),
            Vec3::new(0.0, 0.4, -0.6),
        ],
    );
    let m = skeleton(
        &joints,
        &[
            (knee, Vec3::new(0.42, 0.0, 0.0)),
            (tail - 1, Vec3::new(0.0, 0.42, -0.5)),
        ],
    );
    let names = |c: &(Vec<usize>, Option<usize>)| {
        (
            c.0.iter()
                .map(|j| m.joints[*j].name.as_str())
                .collect::<Vec<_>>(),
            c.1.map(|b| m.joints[b].name.as_str()),
        )
    };
    let found: Vec<_> = m.free_chains().iter().map(names).collect();
    assert_eq!(
        found,
        vec![
            (vec!["hip", "knee"], Some("Body")),
            (vec!["tail1", "tail2"], Some("Body")),
        ]
    );
}

#[test]
fn named_limbs_that_make_no_chain_are_typed_errors_that_say_which() {
    let m = four_legs(["hip.L", "hip.R", "hipB.L", "hipB.R"]);
    let given = |bones: &[&str]| {
        given_chains(
            &m,
            &[(
                "L1".to_string(),
                bones.iter().map(|b| b.to_string()).collect(),
            )],
            "legs",
        )
    };
    assert_eq!(
        given(&[]).expect_err("empty"),
        ChainError::Empty {
            what: "legs",
            name: "L1".into()
        }
    );
    let e = given(&["hip.L", "kne"]).expect_err("no such bone");
    assert_eq!(
        e,
        ChainError::Bone(NoSuchBone {
            field: "model.bind.legs.L1".into(),
            name: "kne".into(),
            near: Some("knee".into()),
        })
    );
    assert_eq!(
        e.to_string(),
        "model.bind.legs.L1: no bone \"kne\" in the model (did you mean \"knee\"?)"
    );
    assert!(matches!(
        given(&["hip.R", "Body"]).expect_err("upward"),
        ChainError::Broken { parent, child, .. } if parent == "hip.R" && child == "Body"
    ));
    let ok = given(&["hip.L", "knee"]).expect("a chain");
    assert_eq!(ok[0].bones, vec![1, 2]);
}

#[test]
fn legs_are_chains_ending_on_the_ground_and_none_is_a_typed_error() {
    let m = four_legs(["hip.L", "hip.R", "hipB.L", "hipB.R"]);
    let (legs, flat) = find_legs(&m, &BindSpec::default(), &m.free_chains()).expect("legs");
    assert!(!flat);
    assert_eq!(legs.len(), 4);
    assert!(legs.iter().all(|l| l.bones.len() == 2 && l.tip.y == 0.0));
    // A spine and a head: nothing on the ground, nothing mirrored.
    let joints = [
        ("Root", None, Vec3::ZERO),
        ("Spine", Some(0), Vec3::new(0.0, 0.5, 0.0)),
        ("Head", Some(1), Vec3::new(0.0, 0.8, 0.2)),
    ];
    let m = skeleton(&joints, &[(2, Vec3::new(0.0, 1.0, 0.3))]);
    let e = find_legs(&m, &BindSpec::default(), &m.free_chains()).expect_err("no legs");
    assert_eq!(
        e,
        LegsError::None(NoLegs {
            bones: vec!["Root".into(), "Spine".into(), "Head".into()]
        })
    );
    let e = bind(&m, &BindSpec::default()).expect_err("no legs");
    assert!(matches!(e, BindError::Legs(LegsError::None(_))), "{e}");
}

#[test]
fn a_tail_or_a_stinger_on_the_ground_is_no_leg() {
    let mut joints = vec![("Body", None, Vec3::new(0.0, 0.5, 0.0))];
    let mut tips = Vec::new();
    for x in [0.2f32, -0.2] {
        let knee = chain(
            &mut joints,
            0,
            &["hip", "knee"],
            &[Vec3::new(x, 0.5, 0.1), Vec3::new(x * 1.5, 0.3, 0.1)],
        );
        tips.push((knee, Vec3::new(x * 1.6, 0.0, 0.1)));
    }
    let tail = chain(
        &mut joints,
        0,
        &["Tail1", "Tail2"],
        &[Vec3::new(0.0, 0.45, -0.3), Vec3::new(0.0, 0.2, -0.6)],
    );
    tips.push((tail, Vec3::new(0.0, 0.0, -0.8)));
    let m = skeleton(&joints, &tips);
    let (legs, _) = find_legs(&m, &BindSpec::default(), &m.free_chains()).expect("legs");
    assert_eq!(legs.len(), 2, "{legs:?}");
    assert!(legs.iter().all(|l| m.joints[l.bones[0]].name == "hip"));
}

#[test]
fn the_body_is_the_deepest_joint_every_leg_hangs_from_unless_named() {
    // Root > Pelvis > Body > legs; a misnamed body bone is a typed error with a hint.
    let mut joints = vec![
        ("Root", None, Vec3::ZERO),
        ("Pelvis", Some(0), Vec3::new(0.0, 0.5, 0.0)),
        ("Body", Some(1), Vec3::new(0.0, 0.5, 0.05)),
    ];
    let mut tips = Vec::new();
    for x in [0.2f32, -0.2] {
        let knee = chain(
            &mut joints,
            2,
            &["hip", "knee"],
            &[Vec3::new(x, 0.5, 0.1), Vec3::new(x * 1.5, 0.3, 0.1)],
        );
        tips.push((knee, Vec3::new(x * 1.6, 0.0, 0.1)));
    }
    let m = skeleton(&joints, &tips);
    let chains = m.free_chains();
    let (legs, _) = find_legs(&m, &BindSpec::default(), &chains).expect("legs");
    assert_eq!(find_body(&m, &BindSpec::default(), &legs), Ok(2));
    let named = BindSpec {
        body: Some("Pelvis".into()),
        ..BindSpec::default()
    };
    assert_eq!(find_body(&m, &named, &legs), Ok(1));
    let wrong = BindSpec {
        body: Some("pelvs".into()),
        ..BindSpec::default()
    };
    let e = find_body(&m, &wrong, &legs).expect_err("no such bone");
    assert_eq!(e.near.as_deref(), Some("Pelvis"));
    assert!(matches!(
        bind(&m, &wrong).expect_err("no such bone"),
        BindError::Bone(_)
    ));
}

#[test]
fn arms_are_mirrored_chains_of_three_off_the_ground_and_a_head_is_none() {
    // A biped: two legs to the ground, two three-bone arms hanging beside the body, a
    // head with two three-bone ears (mirrored too).
    let mut joints = vec![("Hips", None, Vec3::new(0.0, 1.0, 0.0))];
    let mut tips = Vec::new();
    for (x, side) in [(0.1f32, "L"), (-0.1, "R")] {
        let leg: Vec<&'static str> = ["thigh", "shin"]
            .iter()
            .map(|b| &*Box::leak(format!("{b}.{side}").into_boxed_str()))
            .collect();
        let knee = chain(
            &mut joints,
            0,
            &leg,
            &[Vec3::new(x, 1.0, 0.0), Vec3::new(x, 0.5, 0.05)],
        );
        tips.push((knee, Vec3::new(x, 0.0, 0.0)));
    }
    let chest = chain(&mut joints, 0, &["Chest"], &[Vec3::new(0.0, 1.4, 0.0)]);
    let head = chain(&mut joints, chest, &["Head"], &[Vec3::new(0.0, 1.7, 0.0)]);
    tips.push((head, Vec3::new(0.0, 1.85, 0.05)));
    for (x, side) in [(1.0f32, "L"), (-1.0, "R")] {
        let arm: Vec<&'static str> = ["upperarm", "forearm", "hand"]
            .iter()
            .map(|b| &*Box::leak(format!("{b}.{side}").into_boxed_str()))
            .collect();
        let hand = chain(
            &mut joints,
            chest,
            &arm,
            &[
                Vec3::new(0.2 * x, 1.45, 0.0),
                Vec3::new(0.25 * x, 1.15, 0.0),
                Vec3::new(0.27 * x, 0.9, 0.05),
            ],
        );
        tips.push((hand, Vec3::new(0.28 * x, 0.8, 0.05)));
        let ear: Vec<&'static str> = ["ear1", "ear2", "ear3"]
            .iter()
            .map(|b| &*Box::leak(format!("{b}.{side}").into_boxed_str()))
            .collect();
        let tip = chain(
            &mut joints,
            head,
            &ear,
            &[
                Vec3::new(0.05 * x, 1.8, 0.0),
                Vec3::new(0.1 * x, 1.85, 0.0),
                Vec3::new(0.15 * x, 1.9, 0.0),
            ],
        );
        tips.push((tip, Vec3::new(0.2 * x, 1.95, 0.0)));
    }
    let m = skeleton(&joints, &tips);
    let (b, plan) = bind(&m, &BindSpec::default()).expect("binds");
    let named = |ls: &[LegChain]| {
        ls.iter()
            .map(|l| (l.name.clone(), m.joints[l.bones[0]].name.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        named(&b.legs),
        vec![
            ("L1".to_string(), "thigh.L".to_string()),
            ("R1".to_string(), "thigh.R".to_string())
        ]
    );
    assert_eq!(
        named(&b.arms),
        vec![
            ("arm_l1".to_string(), "upperarm.L".to_string()),
            ("arm_r1".to_string(), "upperarm.R".to_string())
        ]
    );
    assert_eq!(b.head.map(|h| m.joints[h].name.as_str()), Some("Head"));
    assert_eq!(plan.arms[0].2.len(), 3, "{:?}", plan.arms);
}

#[test]
fn a_model_whose_feet_are_above_its_hips_is_upside_down() {
    // The four legs named by hand, their tips above their hips (a model on its back).
    let mut joints = vec![("Body", None, Vec3::new(0.0, 0.2, 0.0))];
    let mut tips = Vec::new();
    for x in [0.2f32, -0.2] {
        let knee = chain(
            &mut joints,
            0,
            &["hip", "knee"],
            &[Vec3::new(x, 0.2, 0.0), Vec3::new(x * 1.5, 0.4, 0.0)],
        );
        tips.push((knee, Vec3::new(x * 1.6, 0.7, 0.0)));
    }
    let mut m = skeleton(&joints, &tips);
    // Distinct names for the hand-named legs.
    m.joints[1].name = "hip.L".into();
    m.joints[3].name = "hip.R".into();
    m.joints[2].name = "knee.L".into();
    m.joints[4].name = "knee.R".into();
    let spec = BindSpec {
        legs: vec![
            ("L1".into(), vec!["hip.L".into(), "knee.L".into()]),
            ("R1".into(), vec!["hip.R".into(), "knee.R".into()]),
        ],
        ..BindSpec::default()
    };
    assert_eq!(
        bind(&m, &spec).expect_err("upside down"),
        BindError::UpsideDown
    );
}
