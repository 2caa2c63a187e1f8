//! Curves scripts use to shape motion: a monotone cubic through points (clamped outside),
//! piecewise linear, `sin πx` on 0..1, and smoothstep.

use thiserror::Error;

/// Smoothstep on 0..1 (clamped): 0 at 0, 1 at 1, flat at both ends.
pub(crate) fn smoothstep01(x: f32) -> f32 {
    let t = x.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A 1-D curve `y = f(x)`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Curve {
    /// Monotone cubic Hermite through the points (Fritsch–Carlson): no overshoot between points.
    Monotone {
        /// Knot x values, strictly increasing.
        xs: Vec<f32>,
        /// Knot y values.
        ys: Vec<f32>,
        /// Tangents at the knots.
        ms: Vec<f32>,
    },
    /// Straight lines between the points.
    Linear {
        /// Knot x values, strictly increasing.
        xs: Vec<f32>,
        /// Knot y values.
        ys: Vec<f32>,
    },
    /// `sin(π·x)` for x in 0..1, 0 outside: the default step arc.
    SineArc,
    /// Smoothstep from 0 at `x0` to 1 at `x1`.
    Smoothstep {
        /// Where the curve leaves 0.
        x0: f32,
        /// Where the curve reaches 1.
        x1: f32,
    },
    /// The same value everywhere.
    Constant(f32),
}

/// Why a curve could not be built.
#[derive(Debug, Error, PartialEq)]
pub enum CurveError {
    /// No points at all.
    #[error("needs at least one point")]
    Empty,
    /// A NaN or infinite coordinate.
    #[error("point {0} is not a finite number")]
    NotFinite(usize),
    /// x values must strictly increase.
    #[error("point {0}: x values must strictly increase")]
    NotIncreasing(usize),
    /// smoothstep edges equal or not finite.
    #[error("smoothstep needs two different finite edges")]
    BadEdges,
}

fn check_points(points: &[(f32, f32)]) -> Result<(), CurveError> {
    if points.is_empty() {
        return Err(CurveError::Empty);
    }
    for (i, (x, y)) in points.iter().enumerate() {
        if !x.is_finite() || !y.is_finite() {
            return Err(CurveError::NotFinite(i + 1));
        }
        if i > 0 && *x <= points[i - 1].0 {
            return Err(CurveError::NotIncreasing(i + 1));
        }
    }
    Ok(())
}

impl Curve {
    /// A monotone cubic through `points` (x strictly increasing).
    pub fn monotone(points: &[(f32, f32)]) -> Result<Curve, CurveError> {
        check_points(points)?;
        let xs: Vec<f32> = points.iter().map(|p| p.0).collect();
        let ys: Vec<f32> = points.iter().map(|p| p.1).collect();
        let n = xs.len();
        if n == 1 {
            return Ok(Curve::Constant(ys[0]));
        }
        let d: Vec<f32> = (0..n - 1)
            .map(|k| (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k]))
            .collect();
        let mut ms = vec![0.0f32; n];
        ms[0] = d[0];
        ms[n - 1] = d[n - 2];
        for k in 1..n - 1 {
            ms[k] = if d[k - 1] * d[k] <= 0.0 {
                0.0
            } else {
                0.5 * (d[k - 1] + d[k])
            };
        }
        for k in 0..n - 1 {
            if d[k] == 0.0 {
                ms[k] = 0.0;
                ms[k + 1] = 0.0;
            } else {
                let a = ms[k] / d[k];
                let b = ms[k + 1] / d[k];
                let s = a * a + b * b;
                if s > 9.0 {
                    let t = 3.0 / s.sqrt();
                    ms[k] = t * a * d[k];
                    ms[k + 1] = t * b * d[k];
                }
            }
        }
        Ok(Curve::Monotone { xs, ys, ms })
    }

    /// Straight segments through `points` (x strictly increasing).
    pub fn linear(points: &[(f32, f32)]) -> Result<Curve, CurveError> {
        check_points(points)?;
        if points.len() == 1 {
            return Ok(Curve::Constant(points[0].1));
        }
        Ok(Curve::Linear {
            xs: points.iter().map(|p| p.0).collect(),
            ys: points.iter().map(|p| p.1).collect(),
        })
    }

    /// Smoothstep from 0 at `x0` to 1 at `x1`.
    pub fn smoothstep(x0: f32, x1: f32) -> Result<Curve, CurveError> {
        if !x0.is_finite() || !x1.is_finite() || x0 == x1 {
            return Err(CurveError::BadEdges);
        }
        Ok(Curve::Smoothstep { x0, x1 })
    }

    /// Evaluates the curve at `x` (clamped to the end values outside the points).
    pub fn eval(&self, x: f32) -> f32 {
        match self {
            Curve::Constant(v) => *v,
            Curve::SineArc => {
                if (0.0..=1.0).contains(&x) {
                    (std::f32::consts::PI * x).sin()
                } else {
                    0.0
                }
            }
            Curve::Smoothstep { x0, x1 } => smoothstep01((x - x0) / (x1 - x0)),
            Curve::Linear { xs, ys } => {
                let (k, t) = locate(xs, x);
                match t {
                    None => ys[k],
                    Some(t) => ys[k] + (ys[k + 1] - ys[k]) * t,
                }
            }
            Curve::Monotone { xs, ys, ms } => {
                let (k, t) = locate(xs, x);
                match t {
                    None => ys[k],
                    Some(t) => {
                        let h = xs[k + 1] - xs[k];
                        let t2 = t * t;
                        let t3 = t2 * t;
                        let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
                        let h10 = t3 - 2.0 * t2 + t;
                        let h01 = -2.0 * t3 + 3.0 * t2;
                        let h11 = t3 - t2;
                        h00 * ys[k] + h10 * h * ms[k] + h01 * ys[k + 1] + h11 * h * ms[k + 1]
                    }
                }
            }
        }
    }
}

/// Segment index and local parameter for `x`; `None` parameter means "clamped to knot k".
fn locate(xs: &[f32], x: f32) -> (usize, Option<f32>) {
    let n = xs.len();
    if x.is_nan() || x <= xs[0] {
        return (0, None);
    }
    if x >= xs[n - 1] {
        return (n - 1, None);
    }
    let k = xs.partition_point(|v| *v <= x) - 1;
    (k, Some((x - xs[k]) / (xs[k + 1] - xs[k])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(c: &Curve, cases: &[(f32, f32)]) {
        for (x, want) in cases {
            let got = c.eval(*x);
            assert!(
                (got - want).abs() < 1e-5,
                "{c:?} at {x}: got {got}, want {want}"
            );
        }
    }

    #[test]
    fn monotone_passes_through_points_and_clamps() {
        let c = Curve::monotone(&[(0.0, 1.0), (2.0, 0.6)]).expect("valid");
        check(
            &c,
            &[(-1.0, 1.0), (0.0, 1.0), (1.0, 0.8), (2.0, 0.6), (5.0, 0.6)],
        );
        let c = Curve::monotone(&[(0.0, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 0.0)]).expect("valid");
        check(&c, &[(1.0, 1.0), (2.0, 1.0), (3.0, 0.0)]);
    }

    #[test]
    fn monotone_never_overshoots() {
        let pts = [(0.0, 0.0), (0.1, 0.05), (0.2, 1.0), (1.0, 1.0), (1.5, 0.2)];
        let c = Curve::monotone(&pts).expect("valid");
        for i in 0..=1500 {
            let x = i as f32 / 1000.0;
            let y = c.eval(x);
            assert!((-1e-6..=1.0 + 1e-6).contains(&y), "overshoot {y} at {x}");
        }
        // Monotone between knots that rise.
        let mut prev = c.eval(0.0);
        for i in 1..=1000 {
            let y = c.eval(i as f32 / 1000.0);
            assert!(y >= prev - 1e-6, "not monotone at {i}");
            prev = y;
        }
    }

    #[test]
    fn presets() {
        check(
            &Curve::SineArc,
            &[
                (0.0, 0.0),
                (0.5, 1.0),
                (1.0, 0.0),
                (1.5, 0.0),
                (0.25, (std::f32::consts::PI * 0.25).sin()),
            ],
        );
        let s = Curve::smoothstep(0.2, 1.5).expect("valid");
        check(
            &s,
            &[(0.0, 0.0), (0.2, 0.0), (0.85, 0.5), (1.5, 1.0), (3.0, 1.0)],
        );
        let l = Curve::linear(&[(0.0, 0.0), (1.0, 2.0), (2.0, 0.0)]).expect("valid");
        check(&l, &[(0.5, 1.0), (1.5, 1.0), (-1.0, 0.0), (9.0, 0.0)]);
        check(
            &Curve::monotone(&[(1.0, 3.0)]).expect("valid"),
            &[(0.0, 3.0), (7.0, 3.0)],
        );
    }

    #[test]
    fn rejects_bad_points() {
        assert_eq!(Curve::monotone(&[]), Err(CurveError::Empty));
        assert_eq!(
            Curve::monotone(&[(0.0, 1.0), (0.0, 2.0)]),
            Err(CurveError::NotIncreasing(2))
        );
        assert_eq!(
            Curve::linear(&[(0.0, f32::NAN)]),
            Err(CurveError::NotFinite(1))
        );
        assert_eq!(Curve::smoothstep(1.0, 1.0), Err(CurveError::BadEdges));
        assert!(Curve::monotone(&[(0.0, 0.0)])
            .expect("one point")
            .eval(f32::NAN)
            .is_finite());
    }
}
