//! A type's `nav` section: its agent's size and steering limits, its jump limits and the
//! link kinds it takes, with their checks.

use super::def::{non_negative, positive, DefError};

/// Navigation and steering settings. `speed`, `acceleration` and `turn_rate` also bound `c:move`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NavDef {
    /// Agent radius, m.
    pub radius: f32,
    /// Agent height, m.
    pub height: f32,
    /// Steepest walkable slope, degrees.
    pub max_slope: f32,
    /// Tallest step climbed, m.
    pub step_height: f32,
    /// Cruise speed, m/s.
    pub speed: f32,
    /// Acceleration, m/s².
    pub acceleration: f32,
    /// Turn rate, degrees per second.
    pub turn_rate: f32,
    /// Distance at which a destination counts as reached, m.
    pub stopping_distance: f32,
    /// Slow down before the destination.
    pub auto_brake: bool,
    /// `nav.jump`: the bake finds jump, drop and hop links within these limits; `c:jump`
    /// keeps to them (to [`JumpLimits::default`] when absent).
    pub jump: Option<JumpLimits>,
    /// `nav.links`: the link kinds it takes (every kind when absent).
    pub links: Option<Vec<String>>,
    /// `nav.heading`: which way the body faces as it goes where nothing else says.
    pub heading: Heading,
}

/// Which way a type's body faces as it goes (`nav.heading`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Heading {
    /// Nose first (`"forward"`, the default).
    #[default]
    Forward,
    /// Side first (`"side"`: a crab): turned a quarter from where it goes, to whichever
    /// side is nearer its facing.
    Side,
}

impl Heading {
    /// From its name in a definition.
    pub fn from_name(name: &str) -> Option<Heading> {
        match name {
            "forward" => Some(Heading::Forward),
            "side" => Some(Heading::Side),
            _ => None,
        }
    }
}

/// A type's jump limits (`nav = { jump = { gap, up, down } }`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JumpLimits {
    /// Widest gap between ledges, m.
    pub gap: f32,
    /// Highest hop up, m.
    pub up: f32,
    /// Deepest drop, m.
    pub down: f32,
}

impl Default for JumpLimits {
    /// What `c:jump` allows a type that gives no `nav.jump`.
    fn default() -> Self {
        JumpLimits {
            gap: 1.0,
            up: 0.5,
            down: 1.5,
        }
    }
}

impl Default for NavDef {
    fn default() -> Self {
        NavDef {
            radius: 0.5,
            height: 0.4,
            max_slope: 45.0,
            step_height: 0.3,
            speed: 2.0,
            acceleration: 6.0,
            turn_rate: 360.0,
            stopping_distance: 0.2,
            auto_brake: true,
            jump: None,
            links: None,
            heading: Heading::Forward,
        }
    }
}

impl NavDef {
    /// Checks every field (`DefError` names it, `nav.` first).
    pub(crate) fn validate(&self) -> Result<(), DefError> {
        let nv = self;
        positive("nav.radius", nv.radius)?;
        positive("nav.height", nv.height)?;
        positive("nav.max_slope", nv.max_slope)?;
        if nv.max_slope >= 90.0 {
            return Err(DefError::new(
                "nav.max_slope",
                format!("must be < 90 degrees, got {}", nv.max_slope),
            ));
        }
        non_negative("nav.step_height", nv.step_height)?;
        positive("nav.speed", nv.speed)?;
        positive("nav.acceleration", nv.acceleration)?;
        positive("nav.turn_rate", nv.turn_rate)?;
        non_negative("nav.stopping_distance", nv.stopping_distance)?;
        if let Some(j) = &nv.jump {
            non_negative("nav.jump.gap", j.gap)?;
            non_negative("nav.jump.up", j.up)?;
            non_negative("nav.jump.down", j.down)?;
            for (f, v, max) in [
                ("nav.jump.gap", j.gap, 20.0),
                ("nav.jump.up", j.up, 10.0),
                ("nav.jump.down", j.down, 20.0),
            ] {
                if v > max {
                    return Err(DefError::new(f, format!("must be at most {max} (m)")));
                }
            }
        }
        if let Some(kinds) = &nv.links {
            for (i, k) in kinds.iter().enumerate() {
                if k.is_empty() || k.len() > 64 {
                    return Err(DefError::new(
                        format!("nav.links[{}]", i + 1),
                        "must be a kind name of 1 to 64 characters",
                    ));
                }
            }
        }

        Ok(())
    }
}
