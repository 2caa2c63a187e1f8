//! A render snapshot: the plain data a view needs from the World, extracted once per frame
//! into reused buffers. Views read snapshots, never the live World.

use glam::{Quat, Vec3};

use super::world::{CreatureId, World};

/// One leg's pose for drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegPose {
    /// Hip, world space.
    pub hip: Vec3,
    /// Knee, world space.
    pub knee: Vec3,
    /// Foot, world space.
    pub foot: Vec3,
    /// Where the foot wants to be (debug drawing).
    pub target: Vec3,
    /// Planted.
    pub grounded: bool,
}

/// One creature for drawing; its legs, then its arms, are `legs[first_leg..first_leg +
/// leg_count]` of the snapshot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureView {
    /// Identity.
    pub id: CreatureId,
    /// Body centre.
    pub position: Vec3,
    /// Body rotation (tilt then yaw).
    pub rotation: Quat,
    /// Body full extents.
    pub size: Vec3,
    /// Up vector of the fitted support plane.
    pub up: Vec3,
    /// Head centre, world space.
    pub head_position: Vec3,
    /// Head rotation (counter-yawed).
    pub head_rotation: Quat,
    /// Head full extents.
    pub head_size: Vec3,
    /// Leg thickness, metres.
    pub leg_radius: f32,
    /// Index of the first leg in [`Snapshot::legs`].
    pub first_leg: u32,
    /// Number of legs and arms.
    pub leg_count: u32,
}

/// Everything a frame draws of the dynamic world.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Tick the snapshot was taken after.
    pub frame: u64,
    /// Simulation time, seconds.
    pub time: f64,
    /// Level version (see [`World::level_version`]).
    pub level_version: u64,
    /// Creatures in id order.
    pub creatures: Vec<CreatureView>,
    /// All legs, creature by creature.
    pub legs: Vec<LegPose>,
    /// Every ragdoll's joints (for the `ragdoll` debug layer).
    pub rig_joints: Vec<super::RigJointView>,
}

impl Snapshot {
    /// The legs of one creature.
    pub fn legs_of(&self, c: &CreatureView) -> &[LegPose] {
        &self.legs[c.first_leg as usize..(c.first_leg + c.leg_count) as usize]
    }

    /// Fills `self` from `world`, reusing its buffers.
    pub fn capture(&mut self, world: &World) {
        self.frame = world.frame();
        self.time = world.time();
        self.level_version = world.level_version();
        self.creatures.clear();
        self.legs.clear();
        self.rig_joints.clear();
        for c in world.creatures() {
            let first_leg = self.legs.len() as u32;
            match c.rag.as_ref() {
                // A ragdoll's legs are its rig's segments.
                Some(rag) => {
                    world.rig_joints(c.id, &mut self.rig_joints);
                    for chain in super::rig_chains(&c.def, &rag.parts) {
                        let foot = chain[chain.len() - 1];
                        self.legs.push(LegPose {
                            hip: chain[0],
                            knee: chain[1],
                            foot,
                            target: foot,
                            grounded: false,
                        });
                    }
                }
                None => {
                    for st in &c.loco.legs {
                        self.legs.push(LegPose {
                            hip: st.hip,
                            knee: st.knee,
                            foot: st.foot,
                            target: st.target,
                            grounded: st.grounded,
                        });
                    }
                    // Arms are drawn as limbs that never touch the ground.
                    for chain in crate::locomotion::arm_chains(&c.def, &c.loco) {
                        let hand = chain[chain.len() - 1];
                        self.legs.push(LegPose {
                            hip: chain[0],
                            knee: chain[1],
                            foot: hand,
                            target: hand,
                            grounded: false,
                        });
                    }
                }
            }
            let longest = c.def.legs.iter().map(|l| l.length).fold(0.0f32, f32::max);
            let (position, rotation) = c.body_pose();
            let size = c.def.body.size;
            let (head_offset, head_size, counter) = match &c.def.body.head {
                Some(h) => (h.offset, h.size, h.counter_yaw),
                None => {
                    let r = size.x.min(size.y) * 0.32;
                    (
                        Vec3::new(0.0, 0.0, size.z * 0.5 + r * 0.4),
                        Vec3::splat(2.0 * r),
                        0.0,
                    )
                }
            };
            self.creatures.push(CreatureView {
                id: c.id,
                position,
                rotation,
                size,
                head_position: position + rotation * head_offset,
                head_rotation: if c.rag.is_some() {
                    rotation
                } else {
                    c.loco.head_rotation(counter)
                },
                head_size,
                up: if c.rag.is_some() {
                    rotation * Vec3::Y
                } else {
                    c.loco.up
                },
                leg_radius: (longest * 0.035).clamp(0.01, 0.08),
                first_leg,
                leg_count: self.legs.len() as u32 - first_leg,
            });
        }
    }

    /// Blends two snapshots (`a` at `t = 0`, `b` at `t = 1`) into `self`: creatures present
    /// in both are interpolated, the rest are taken from `b`.
    pub fn interpolate(&mut self, a: &Snapshot, b: &Snapshot, t: f32) {
        self.clone_from(b);
        let t = t.clamp(0.0, 1.0);
        let mut j = 0;
        for c in self.creatures.iter_mut() {
            while j < a.creatures.len() && a.creatures[j].id < c.id {
                j += 1;
            }
            let Some(p) = a
                .creatures
                .get(j)
                .filter(|p| p.id == c.id && p.leg_count == c.leg_count)
            else {
                continue;
            };
            c.position = p.position.lerp(c.position, t);
            c.rotation = p.rotation.slerp(c.rotation, t);
            c.head_position = p.head_position.lerp(c.head_position, t);
            c.head_rotation = p.head_rotation.slerp(c.head_rotation, t);
            c.up = p.up.lerp(c.up, t).normalize_or(c.up);
            for k in 0..c.leg_count as usize {
                let (pa, pb) = (
                    a.legs[p.first_leg as usize + k],
                    &mut self.legs[c.first_leg as usize + k],
                );
                pb.hip = pa.hip.lerp(pb.hip, t);
                pb.knee = pa.knee.lerp(pb.knee, t);
                pb.foot = pa.foot.lerp(pb.foot, t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::locomotion::Intent;
    use crate::sim::{Command, GroundDesc, HeightSource, TICK_DT};

    #[test]
    fn captures_and_interpolates() {
        let mut w = World::new(1);
        w.set_ground(&GroundDesc {
            position: Vec3::ZERO,
            width: 20.0,
            depth: 20.0,
            heights: HeightSource::Flat,
        })
        .expect("ground");
        let t = w.register_type("t/spider", spider().validate().expect("valid"));
        let id = w.spawn(t, Vec3::ZERO, 0.0).expect("spawn");
        w.push(Command::SetIntent(
            id,
            Intent::Move {
                dir: Vec3::Z,
                speed: 1.0,
                drop: false,
            },
        ));
        let (mut a, mut b, mut mid) = (
            Snapshot::default(),
            Snapshot::default(),
            Snapshot::default(),
        );
        for _ in 0..30 {
            w.step(TICK_DT);
        }
        a.capture(&w);
        w.step(TICK_DT);
        b.capture(&w);
        assert_eq!(a.creatures.len(), 1);
        assert_eq!(b.legs_of(&b.creatures[0]).len(), 8);
        mid.interpolate(&a, &b, 0.5);
        let (pa, pb, pm) = (
            a.creatures[0].position,
            b.creatures[0].position,
            mid.creatures[0].position,
        );
        assert!(pb.z > pa.z);
        assert!((pm - (pa + pb) * 0.5).length() < 1e-5);
        assert!(w.level_version() > 0);
    }
}
