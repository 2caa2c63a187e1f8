//! The window's physics keys, as commands any driver could push (recorded like a script's):
//! `K` knocks the selected creature over, Space lowers every muscle (everyone goes limp,
//! TABS' space bar) and raises them again (everyone gets up).

use glam::Vec3;

use crate::sim::{Command, CreatureId, RagdollRequest, World};

/// Strength of the muscles while Space holds everyone down.
pub(crate) const LOWERED: f32 = 0.05;

/// Knocks `id` over along `dir` (the view): see [`World::knock_over`].
pub(crate) fn knock_over(world: &mut World, id: CreatureId, dir: Vec3) {
    world.knock_over(id, dir);
}

/// Lowers (`true`) or raises every creature's muscles: lowered, every legged creature goes
/// limp until raised; raised, every ragdoll gets its full strength back and gets up.
pub(crate) fn set_all_muscles(world: &mut World, lowered: bool) {
    let cmds: Vec<Command> = world
        .creatures()
        .iter()
        .filter(|c| !c.def.legs.is_empty())
        .flat_map(|c| {
            if lowered {
                let req = RagdollRequest {
                    muscle: Some(LOWERED),
                    duration: Some(crate::sim::FOREVER),
                    ..Default::default()
                };
                vec![Command::Ragdoll(c.id, req)]
            } else if c.rag.is_some() {
                vec![Command::SetMuscle(c.id, 1.0), Command::Recover(c.id)]
            } else {
                Vec::new()
            }
        })
        .collect();
    for c in cmds {
        world.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::sim::TICK_DT;

    #[test]
    fn space_lowers_and_raises_everyone_and_k_knocks_one_over() {
        let mut w = crate::sim::world::tests::flat_world(40.0);
        let t = w.register_type("t/spider", spider().validate().expect("valid"));
        let a = w.spawn(t, Vec3::new(-3.0, 0.0, 0.0), 0.0).expect("a");
        let b = w.spawn(t, Vec3::new(3.0, 0.0, 0.0), 0.0).expect("b");
        knock_over(&mut w, a, Vec3::X);
        w.step(TICK_DT);
        assert_eq!(w.creature(a).expect("a").ragdoll_state(), "limp");
        assert_eq!(w.creature(b).expect("b").ragdoll_state(), "animated");
        set_all_muscles(&mut w, true);
        for _ in 0..300 {
            w.step(TICK_DT);
        }
        for id in [a, b] {
            let c = w.creature(id).expect("c");
            assert_eq!(
                c.ragdoll_state(),
                "limp",
                "lowered muscles hold everyone down"
            );
            assert!(c.body_pose().0.y < c.def.body.height * 0.5);
        }
        set_all_muscles(&mut w, false);
        for _ in 0..180 {
            w.step(TICK_DT);
        }
        for id in [a, b] {
            assert_eq!(
                w.creature(id).expect("c").ragdoll_state(),
                "animated",
                "raised: up again"
            );
        }
    }
}
