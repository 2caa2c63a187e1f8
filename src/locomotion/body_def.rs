//! Parts of a body's definition beside its size and height: the head (where it sits, how it
//! looks at things) and its breath at rest.

use glam::Vec3;

/// A head: where it sits, how big it is, and how much it keeps looking where the creature
/// goes while the body turns and leans.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HeadDef {
    /// Centre, body space.
    pub offset: Vec3,
    /// Full extents (x, y, z), metres.
    pub size: Vec3,
    /// 0..1: share of the turn ahead and of the body's lean the head cancels.
    pub counter_yaw: f32,
    /// How it turns to look at something (`c:look_at`).
    #[serde(default)]
    pub look: LookDef,
}

/// `body.head.look`: how far and how fast a head turns to look at a target (`c:look_at`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LookDef {
    /// Most the head turns left or right of the body, radians.
    pub max_yaw: f32,
    /// Most it looks up or down, radians.
    pub max_pitch: f32,
    /// Fastest it turns, radians a second.
    pub speed: f32,
}

impl Default for LookDef {
    fn default() -> LookDef {
        LookDef {
            max_yaw: 70f32.to_radians(),
            max_pitch: 35f32.to_radians(),
            speed: 240f32.to_radians(),
        }
    }
}

/// `body.breathe`: the body rising and falling at rest.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BreatheDef {
    /// Breaths a second.
    pub rate: f32,
    /// How far the body rises from the bottom of a breath to its top, metres.
    pub depth: f32,
}
