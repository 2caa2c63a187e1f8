//! A climbing type's settings (`climb = { max_angle, turn_rate, smoothing }`), their
//! defaults and their checks.

use super::def::DefError;

/// Climbing (`climb = { ... }`): the creature walks on surfaces of any orientation, its
/// body's up following them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClimbDef {
    /// Steepest surface it stands on, degrees from level: 90 walls, 180 ceilings.
    /// Default 180.
    pub max_angle: f32,
    /// Fastest its body's up turns, degrees per second. Default 180.
    pub turn_rate: f32,
    /// Time constant of the body's up following the surface, seconds. Default 0.12.
    pub smoothing: f32,
}

impl Default for ClimbDef {
    fn default() -> Self {
        ClimbDef {
            max_angle: 180.0,
            turn_rate: 180.0,
            smoothing: 0.12,
        }
    }
}

impl ClimbDef {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), DefError> {
        let in_range = |field: &str, v: f32, lo: f32, hi: f32| {
            if v.is_finite() && v > lo && v <= hi {
                Ok(())
            } else {
                Err(DefError::new(
                    format!("climb.{field}"),
                    format!("must be > {lo} and <= {hi}, got {v}"),
                ))
            }
        };
        in_range("max_angle", self.max_angle, 0.0, 180.0)?;
        in_range("turn_rate", self.turn_rate, 0.0, 3600.0)?;
        in_range("smoothing", self.smoothing, 0.0, 10.0)?;
        Ok(())
    }
}
