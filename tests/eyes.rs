//! Issue 47, look-at with eyes: a model's eye bones (under its head, named as exporters name
//! them) turn to what the creature looks at — straight at it within their limit, as far as
//! `model::EYE_MAX` beyond — and ride on the head as bound without a look. They are no
//! spring chains; `skitter check` names them; a lid beside them rides along.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;
use common::*;

use glam::{Affine3A, Quat, Vec3};
use skitter::model::{BindSpec, BoundModel, PoseInput, EYE_MAX};

/// A small quadruped (body 0.5 m up, four three-bone legs) with a head, two eyes (each with
/// an exporter's `_end` joint), a lid and an ear chain: its glTF.
fn watcher() -> String {
    let mut joints: Vec<(&str, Option<usize>, [f32; 3])> = vec![("Body", None, [0.0, 0.5, 0.0])];
    let mut verts: Vec<(usize, [f32; 3])> = vec![(0, [0.0, 0.45, 0.3]), (0, [0.0, 0.55, -0.3])];
    let names = [
        ["hip.L", "knee.L", "ankle.L"],
        ["hip.R", "knee.R", "ankle.R"],
        ["hipB.L", "kneeB.L", "ankleB.L"],
        ["hipB.R", "kneeB.R", "ankleB.R"],
    ];
    for (k, (x, z)) in [(0.2f32, 0.3f32), (-0.2, 0.3), (0.2, -0.3), (-0.2, -0.3)]
        .into_iter()
        .enumerate()
    {
        let mut parent = 0;
        for (i, b) in [[x, 0.5, z], [x * 1.3, 0.3, z + 0.05], [x * 1.4, 0.1, z]]
            .into_iter()
            .enumerate()
        {
            joints.push((names[k][i], Some(parent), b));
            parent = joints.len() - 1;
            verts.push((parent, b));
        }
        verts.push((parent, [x * 1.4, 0.0, z]));
    }
    let mut add = |name: &'static str, parent: usize, at: [f32; 3], vert: Option<[f32; 3]>| {
        joints.push((name, Some(parent), at));
        let j = joints.len() - 1;
        if let Some(v) = vert {
            verts.push((j, v));
        }
        j
    };
    let head = add("Head", 0, [0.0, 0.6, 0.4], Some([0.0, 0.65, 0.5]));
    let l = add("Eye.L", head, [0.05, 0.68, 0.5], Some([0.05, 0.68, 0.52]));
    add("Eye.L_end", l, [0.05, 0.68, 0.53], None);
    let r = add("Eye.R", head, [-0.05, 0.68, 0.5], Some([-0.05, 0.68, 0.52]));
    add("Eye.R_end", r, [-0.05, 0.68, 0.53], None);
    add("Eyelid.L", head, [0.05, 0.7, 0.5], Some([0.05, 0.71, 0.51]));
    let ear = add("ear0", head, [0.0, 0.7, 0.42], Some([0.0, 0.72, 0.42]));
    add("ear1", ear, [0.0, 0.76, 0.4], Some([0.0, 0.78, 0.4]));
    rig_gltf(&joints, &verts)
}

fn bound(dir: &std::path::Path) -> BoundModel {
    std::fs::write(dir.join("w.gltf"), watcher()).expect("write");
    let m = load_in(dir, "w.gltf", None).expect("load");
    BoundModel::new(std::sync::Arc::new(m), &BindSpec::default(), None).expect("bind")
}

/// Posed as bound, standing (its legs' joints and tips where the bind pose has them),
/// looking at `look`: each eye's centre and gaze (where the model's forward points in it).
fn eyes(b: &BoundModel, look: Option<Vec3>) -> Vec<(Vec3, Vec3)> {
    let fix = Affine3A::from_mat4(b.binding.fix);
    let (points, lens) = bound_limb_points(b, Affine3A::IDENTITY);
    let (mut world, mut skin) = (Vec::new(), Vec::new());
    b.posed.pose(
        &PoseInput {
            body: Affine3A::IDENTITY,
            body_rotation: Quat::IDENTITY,
            points: &points,
            chain_lens: &lens,
            look,
            ..Default::default()
        },
        &mut world,
        &mut skin,
    );
    // The creature's forward in the model's scene space, carried by each eye's skinning.
    let forward = fix.inverse().transform_vector3(Vec3::Z);
    b.posed
        .eyes()
        .map(|j| {
            let s = skin[j];
            (
                Vec3::from(world[j].translation),
                s.transform_vector3(forward).normalize(),
            )
        })
        .collect()
}

#[test]
fn eyes_turn_to_a_look_within_their_limit_and_ride_the_head_without_one() {
    let dir = tempfile::tempdir().expect("tmp");
    let b = bound(dir.path());
    let names: Vec<&str> = b
        .posed
        .eyes()
        .map(|j| b.model.joints[j].name.as_str())
        .collect();
    assert_eq!(names, ["Eye.L", "Eye.R"]);
    // The ears swing; the eyes, their ends and the lid do not.
    let chains: Vec<&str> = b.springs.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(chains, ["ear0"], "spring chains");
    // No look: both gaze along the body's forward.
    let ahead = eyes(&b, None);
    for (_, gaze) in &ahead {
        assert!(gaze.angle_between(Vec3::Z) < 1e-3, "{gaze}");
    }
    let between = (ahead[0].0 + ahead[1].0) * 0.5;
    // A point a metre ahead, a little up and to the left: each eye straight at it (they
    // converge).
    let near = between + Vec3::new(0.3, 0.25, 1.0);
    let both = eyes(&b, Some(near));
    for (at, gaze) in &both {
        let off = gaze.angle_between(near - *at).to_degrees();
        assert!(off < 0.2, "eye at {at} is {off:.2}° off the target");
    }
    assert!(both[0].1.angle_between(both[1].1) > 0.01, "they converge");
    // Beside the creature: as far as the limit, toward it, no farther.
    let side = between + Vec3::new(-4.0, 0.0, 0.0);
    for (at, gaze) in eyes(&b, Some(side)) {
        let turned = gaze.angle_between(Vec3::Z);
        assert!(
            (turned - EYE_MAX).abs() < 1e-3,
            "turned {:.2}° (limit {:.2}°)",
            turned.to_degrees(),
            EYE_MAX.to_degrees()
        );
        assert!(gaze.x < 0.0, "toward it");
        assert!(
            (gaze.y).abs() < 0.01,
            "level, as the target is: {at} {gaze}"
        );
    }
    // `skitter check` names them.
    let m = model_only_mod(dir.path(), "watcher", &watcher());
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("eyes (turn to what it looks at): Eye.L, Eye.R"),
        "{said}"
    ); // And what the mod will do: the type it defines, the model file it loads.
    assert!(
        said.contains("defines: types watcher/m; behaviours none"),
        "{said}"
    );
    assert!(said.contains("loads: assets/m.gltf (model)"), "{said}");
}
