//! Cubic Bézier paths with an arc-length parameterisation: a table per segment (Gauss–Legendre
//! lengths at 32 knots, with dt/ds) inverted by cubic Hermite interpolation, so `point(s)` at an
//! arc length costs two short binary searches and one cubic evaluation.

use glam::Vec3;

/// Table knots per segment.
const KNOTS: usize = 32;

/// One cubic segment.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cubic {
    /// Start.
    pub p0: Vec3,
    /// Handle out of the start.
    pub p1: Vec3,
    /// Handle into the end.
    pub p2: Vec3,
    /// End.
    pub p3: Vec3,
}

impl Cubic {
    /// B(t).
    #[inline]
    pub fn point(&self, t: f32) -> Vec3 {
        let u = 1.0 - t;
        self.p0 * (u * u * u)
            + self.p1 * (3.0 * u * u * t)
            + self.p2 * (3.0 * u * t * t)
            + self.p3 * (t * t * t)
    }

    /// B'(t).
    #[inline]
    pub fn deriv(&self, t: f32) -> Vec3 {
        let u = 1.0 - t;
        (self.p1 - self.p0) * (3.0 * u * u)
            + (self.p2 - self.p1) * (6.0 * u * t)
            + (self.p3 - self.p2) * (3.0 * t * t)
    }

    /// Arc length on [a, b] by 8-point Gauss–Legendre (f64 accumulation).
    fn length_between(&self, a: f32, b: f32) -> f64 {
        const X: [f64; 4] = [
            0.183_434_642_495_649_8,
            0.525_532_409_916_329,
            0.796_666_477_413_626_7,
            0.960_289_856_497_536_3,
        ];
        const W: [f64; 4] = [
            0.362_683_783_378_362,
            0.313_706_645_877_887_3,
            0.222_381_034_453_374_5,
            0.101_228_536_290_376_3,
        ];
        let (a, b) = (a as f64, b as f64);
        let (m, h) = ((a + b) * 0.5, (b - a) * 0.5);
        let mut sum = 0.0;
        for i in 0..4 {
            for sgn in [-1.0, 1.0] {
                sum += W[i] * self.deriv((m + sgn * h * X[i]) as f32).length() as f64;
            }
        }
        sum * h
    }
}

/// One control point as a script writes it (absolute handle positions; `None` = smooth).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ControlPoint {
    /// Where the path passes.
    pub position: Vec3,
    /// Incoming handle.
    pub handle_in: Option<Vec3>,
    /// Outgoing handle.
    pub handle_out: Option<Vec3>,
}

/// Why a path could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum PathError {
    /// Fewer than two points.
    TooFewPoints,
    /// A non-finite coordinate (1-based point index).
    NotFinite(usize),
    /// Zero total length.
    ZeroLength,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathError::TooFewPoints => write!(f, "a path needs at least 2 points"),
            PathError::NotFinite(i) => write!(f, "point {i} has a non-finite coordinate"),
            PathError::ZeroLength => write!(f, "the path has zero length"),
        }
    }
}

impl std::error::Error for PathError {}

/// A piecewise cubic Bézier path with an arc-length table.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(into = "PathData", from = "PathData")]
pub struct BezierPath {
    segs: Vec<Cubic>,
    closed: bool,
    /// Arc length at the start of each segment (and the total at the end).
    starts: Vec<f32>,
    /// Per segment, KNOTS+1 knots of (s local, t, dt/ds).
    table: Vec<[(f32, f32, f32); KNOTS + 1]>,
    /// The control points it was built from.
    points: Vec<ControlPoint>,
}

/// What a path is stored as (records): its segments; the tables are rebuilt on load.
#[derive(serde::Serialize, serde::Deserialize)]
struct PathData {
    segs: Vec<Cubic>,
    closed: bool,
    points: Vec<ControlPoint>,
}

impl From<BezierPath> for PathData {
    fn from(p: BezierPath) -> PathData {
        PathData {
            segs: p.segs,
            closed: p.closed,
            points: p.points,
        }
    }
}

impl From<PathData> for BezierPath {
    fn from(d: PathData) -> BezierPath {
        let mut p = BezierPath {
            segs: d.segs,
            closed: d.closed,
            starts: Vec::new(),
            table: Vec::new(),
            points: d.points,
        };
        p.build_table();
        p
    }
}

impl BezierPath {
    /// Builds a path through `points`; missing handles are made smooth (Catmull-Rom: one third
    /// of the neighbour chord). A closed path joins the last point back to the first.
    pub fn new(points: &[ControlPoint], closed: bool) -> Result<BezierPath, PathError> {
        let n = points.len();
        if n < 2 {
            return Err(PathError::TooFewPoints);
        }
        for (i, p) in points.iter().enumerate() {
            let ok = p.position.is_finite()
                && p.handle_in.is_none_or(|h| h.is_finite())
                && p.handle_out.is_none_or(|h| h.is_finite());
            if !ok {
                return Err(PathError::NotFinite(i + 1));
            }
        }
        let pos = |i: isize| -> Vec3 {
            if closed {
                points[i.rem_euclid(n as isize) as usize].position
            } else {
                points[i.clamp(0, n as isize - 1) as usize].position
            }
        };
        // Catmull-Rom tangent at i (an open end reflects its neighbour).
        let tangent = |i: usize| -> Vec3 {
            let i = i as isize;
            if !closed && i == 0 {
                (pos(1) - pos(0)) * 0.5
            } else if !closed && i == n as isize - 1 {
                (pos(i) - pos(i - 1)) * 0.5
            } else {
                (pos(i + 1) - pos(i - 1)) * 0.5
            }
        };
        let count = if closed { n } else { n - 1 };
        let mut segs = Vec::with_capacity(count);
        for i in 0..count {
            let j = (i + 1) % n;
            let (a, b) = (&points[i], &points[j]);
            let p1 = a.handle_out.unwrap_or(a.position + tangent(i) / 3.0);
            let p2 = b.handle_in.unwrap_or(b.position - tangent(j) / 3.0);
            segs.push(Cubic {
                p0: a.position,
                p1,
                p2,
                p3: b.position,
            });
        }
        let mut path = BezierPath {
            segs,
            closed,
            starts: Vec::new(),
            table: Vec::new(),
            points: points.to_vec(),
        };
        path.build_table();
        if path.length() <= 0.0 {
            return Err(PathError::ZeroLength);
        }
        Ok(path)
    }

    fn build_table(&mut self) {
        self.starts.clear();
        self.table.clear();
        let mut total = 0.0f64;
        for seg in &self.segs {
            self.starts.push(total as f32);
            let mut row = [(0.0f32, 0.0f32, 0.0f32); KNOTS + 1];
            let mut s = 0.0f64;
            for (k, knot) in row.iter_mut().enumerate() {
                let t = k as f32 / KNOTS as f32;
                if k > 0 {
                    s += seg.length_between((k - 1) as f32 / KNOTS as f32, t);
                }
                let speed = seg.deriv(t).length();
                *knot = (s as f32, t, if speed > 1e-9 { 1.0 / speed } else { 0.0 });
            }
            total += s;
            self.table.push(row);
        }
        self.starts.push(total as f32);
    }

    /// Total arc length, metres.
    pub fn length(&self) -> f32 {
        self.starts.last().copied().unwrap_or(0.0)
    }

    /// Whether the path closes on itself.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// The segments.
    pub fn segments(&self) -> &[Cubic] {
        &self.segs
    }

    /// The control points it was built from.
    pub fn points(&self) -> &[ControlPoint] {
        &self.points
    }

    /// Wraps (closed) or clamps (open) an arc length into [0, length].
    #[inline]
    pub fn normalise(&self, s: f32) -> f32 {
        let l = self.length();
        if self.closed {
            s.rem_euclid(l)
        } else {
            s.clamp(0.0, l)
        }
    }

    /// Segment index and parameter t at arc length `s`.
    #[inline]
    pub fn locate(&self, s: f32) -> (usize, f32) {
        let s = self.normalise(s);
        let last = self.segs.len() - 1;
        let i = (self.starts.partition_point(|v| *v <= s).max(1) - 1).min(last);
        let local = s - self.starts[i];
        let row = &self.table[i];
        let k = (row.partition_point(|kn| kn.0 <= local).max(1) - 1).min(KNOTS - 1);
        let (s0, t0, d0) = row[k];
        let (s1, t1, d1) = row[k + 1];
        let h = s1 - s0;
        if h <= 0.0 {
            return (i, t0);
        }
        // Cubic Hermite on t(s), with slopes dt/ds at both knots.
        let u = ((local - s0) / h).clamp(0.0, 1.0);
        let (u2, u3) = (u * u, u * u * u);
        let t = (2.0 * u3 - 3.0 * u2 + 1.0) * t0
            + (u3 - 2.0 * u2 + u) * h * d0
            + (-2.0 * u3 + 3.0 * u2) * t1
            + (u3 - u2) * h * d1;
        (i, t.clamp(t0, t1))
    }

    /// The point at arc length `s`.
    #[inline]
    pub fn point(&self, s: f32) -> Vec3 {
        let (i, t) = self.locate(s);
        self.segs[i].point(t)
    }

    /// The unit tangent at arc length `s`.
    pub fn tangent(&self, s: f32) -> Vec3 {
        let (i, t) = self.locate(s);
        let d = self.segs[i].deriv(t);
        if d.length_squared() > 1e-12 {
            return d.normalize();
        }
        // A cusp (coincident handles): look a little ahead.
        let e = (self.length() * 1e-4).max(1e-4);
        (self.point(s + e) - self.point(s - e)).normalize_or(Vec3::Z)
    }

    /// Point `i`'s incoming and outgoing handles as the segments use them (smooth ones
    /// computed); `None` where no segment uses one (an open path's ends).
    pub fn handles(&self, i: usize) -> (Option<Vec3>, Option<Vec3>) {
        let n = self.points.len();
        let out = self.segs.get(i).map(|s| s.p1);
        let inn = match i {
            0 if self.closed => self.segs.get(n - 1).map(|s| s.p2),
            0 => None,
            _ => self.segs.get(i - 1).map(|s| s.p2),
        };
        (inn, out)
    }

    /// Arc length of the point of the path closest to `v` (coarse scan, then golden refinement).
    pub fn closest(&self, v: Vec3) -> f32 {
        let l = self.length();
        self.closest_between(v, 0.0, l, (self.segs.len() * 24).max(64))
    }

    /// Arc length of the point closest to `v` within `window` metres of arc length `s0`
    /// either way (the whole path when the window covers it): where a body that was at `v`
    /// belongs on this path when it stood near `s0` of a similar one, without jumping to
    /// another stretch that passes close by.
    pub fn closest_near(&self, v: Vec3, s0: f32, window: f32) -> f32 {
        let l = self.length();
        if 2.0 * window >= l {
            return self.closest(v);
        }
        let (mut a, mut b) = (s0 - window, s0 + window);
        if !self.closed {
            a = a.max(0.0);
            b = b.min(l);
        }
        let n = (((b - a) / l) * (self.segs.len() * 24) as f32)
            .ceil()
            .max(16.0) as usize;
        self.closest_between(v, a, b, n)
    }

    /// The closest point to `v` with arc length in `from..=to` (scanned in `n` steps).
    fn closest_between(&self, v: Vec3, from: f32, to: f32, n: usize) -> f32 {
        let l = self.length();
        let step = (to - from) / n as f32;
        let mut best = (f32::MAX, 0.0f32);
        for k in 0..=n {
            let s = from + k as f32 * step;
            let d = self.point(s).distance_squared(v);
            if d < best.0 {
                best = (d, s);
            }
        }
        let (mut a, mut b) = (best.1 - step, best.1 + step);
        if !self.closed {
            a = a.max(0.0);
            b = b.min(l);
        }
        let g = 0.618_034_f32;
        let f = |s: f32| self.point(s).distance_squared(v);
        let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
        let (mut fc, mut fd) = (f(c), f(d));
        for _ in 0..40 {
            if fc < fd {
                b = d;
                d = c;
                fd = fc;
                c = b - g * (b - a);
                fc = f(c);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + g * (b - a);
                fd = f(d);
            }
        }
        self.normalise((a + b) * 0.5)
    }

    /// `n` points evenly spaced by arc length (both ends included on an open path).
    pub fn sample(&self, n: usize) -> Vec<Vec3> {
        let l = self.length();
        match n {
            0 => Vec::new(),
            1 => vec![self.point(0.0)],
            _ => {
                let div = if self.closed { n } else { n - 1 } as f32;
                (0..n).map(|k| self.point(l * k as f32 / div)).collect()
            }
        }
    }

    /// The same path with each coordinate's y set to `y` (a ground projection, re-tabled).
    pub fn flattened(&self, y: f32) -> BezierPath {
        let flat = |v: Vec3| Vec3::new(v.x, y, v.z);
        let segs = self
            .segs
            .iter()
            .map(|c| Cubic {
                p0: flat(c.p0),
                p1: flat(c.p1),
                p2: flat(c.p2),
                p3: flat(c.p3),
            })
            .collect();
        let mut p = BezierPath {
            segs,
            closed: self.closed,
            starts: Vec::new(),
            table: Vec::new(),
            points: self.points.clone(),
        };
        p.build_table();
        p
    }

    /// A path through fewer points that stays within `tolerance` metres of this one
    /// (Ramer–Douglas–Peucker on dense arc-length samples, then smooth handles).
    pub fn simplify(&self, tolerance: f32) -> BezierPath {
        let dense = self.sample((self.segs.len() * 32).max(64));
        // Smooth curves through the kept points sit much closer to the original than the
        // polyline RDP measures: start loose and tighten until the curve fits.
        let mut tol = tolerance.max(1e-4) * 16.0;
        for _ in 0..12 {
            let keep = rdp(&dense, tol, self.closed);
            let pts: Vec<ControlPoint> = keep
                .iter()
                .map(|i| ControlPoint {
                    position: dense[*i],
                    handle_in: None,
                    handle_out: None,
                })
                .collect();
            if let Ok(p) = BezierPath::new(&pts, self.closed) {
                let worst = dense
                    .iter()
                    .map(|v| p.point(p.closest(*v)).distance(*v))
                    .fold(0.0f32, f32::max);
                if worst <= tolerance || pts.len() >= dense.len() {
                    return p;
                }
            }
            tol *= 0.5;
        }
        self.clone()
    }
}

fn rdp(pts: &[Vec3], tol: f32, closed: bool) -> Vec<usize> {
    fn rec(pts: &[Vec3], a: usize, b: usize, tol: f32, out: &mut Vec<usize>) {
        let (pa, pb) = (pts[a], pts[b]);
        let ab = pb - pa;
        let mut worst = (0.0f32, a);
        for (i, p) in pts.iter().enumerate().take(b).skip(a + 1) {
            let t = if ab.length_squared() > 0.0 {
                ((*p - pa).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let d = p.distance(pa + ab * t);
            if d > worst.0 {
                worst = (d, i);
            }
        }
        if worst.0 > tol {
            rec(pts, a, worst.1, tol, out);
            out.push(worst.1);
            rec(pts, worst.1, b, tol, out);
        }
    }
    let last = pts.len() - 1;
    let mut out = vec![0];
    if closed {
        // Split the loop at its far point so both halves are open polylines.
        let far = (1..pts.len())
            .max_by(|i, j| {
                pts[*i]
                    .distance(pts[0])
                    .total_cmp(&pts[*j].distance(pts[0]))
            })
            .unwrap_or(last / 2);
        rec(pts, 0, far, tol, &mut out);
        out.push(far);
        rec(pts, far, last, tol, &mut out);
        if pts[last].distance(pts[0]) > tol {
            out.push(last);
        }
    } else {
        rec(pts, 0, last, tol, &mut out);
        out.push(last);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(x: f32, y: f32, z: f32) -> ControlPoint {
        ControlPoint {
            position: Vec3::new(x, y, z),
            handle_in: None,
            handle_out: None,
        }
    }

    /// Arc length by dense trapezoids in f64: the reference.
    fn dense_length(p: &BezierPath) -> f64 {
        let mut total = 0.0;
        for seg in p.segments() {
            let n = 200_000;
            let mut prev = seg.point(0.0).as_dvec3();
            for k in 1..=n {
                let t = k as f64 / n as f64;
                let u = 1.0 - t;
                let q = seg.p0.as_dvec3() * (u * u * u)
                    + seg.p1.as_dvec3() * (3.0 * u * u * t)
                    + seg.p2.as_dvec3() * (3.0 * u * t * t)
                    + seg.p3.as_dvec3() * (t * t * t);
                total += (q - prev).length();
                prev = q;
            }
        }
        total
    }

    fn s_curve() -> BezierPath {
        // A tight S: two opposite half-turns of ~2 m radius over 10 m.
        BezierPath::new(
            &[
                cp(0.0, 0.0, 0.0),
                cp(3.0, 0.0, 2.0),
                cp(0.0, 0.0, 4.5),
                cp(-3.0, 0.0, 7.0),
                cp(0.0, 0.0, 9.0),
            ],
            false,
        )
        .expect("path")
    }

    #[test]
    fn arc_length_matches_dense_integration() {
        let big = BezierPath::new(
            &[
                cp(0.0, 0.0, 0.0),
                cp(40.0, 5.0, 30.0),
                cp(10.0, -3.0, 80.0),
                cp(-30.0, 8.0, 60.0),
                cp(-20.0, 0.0, 10.0),
            ],
            true,
        )
        .expect("path");
        for p in [big, s_curve()] {
            let want = dense_length(&p);
            let got = p.length() as f64;
            // 1 mm per 100 m.
            assert!(
                (got - want).abs() <= want / 100.0 * 0.001,
                "length {got} vs {want}"
            );
        }
    }

    #[test]
    fn inverse_is_exact_along_the_path() {
        let p = s_curve();
        // Walking the table's inverse in small arc steps covers equal chord lengths.
        let n = 2000;
        let ds = p.length() / n as f32;
        for k in 0..n {
            let (a, b) = (p.point(k as f32 * ds), p.point((k + 1) as f32 * ds));
            let chord = a.distance(b);
            assert!(
                (chord - ds).abs() < ds * 0.002,
                "step {k}: chord {chord} for ds {ds}"
            );
        }
        assert!(p.point(0.0).distance(Vec3::ZERO) < 1e-5);
        assert!(p.point(p.length()).distance(Vec3::new(0.0, 0.0, 9.0)) < 1e-4);
    }

    #[test]
    fn closed_paths_are_continuous_at_the_seam() {
        let p = BezierPath::new(
            &[
                cp(0.0, 0.0, 0.0),
                cp(10.0, 2.0, 0.0),
                cp(10.0, 0.0, 10.0),
                cp(0.0, 1.0, 10.0),
            ],
            true,
        )
        .expect("path");
        let l = p.length();
        assert!(p.point(0.0).distance(p.point(l)) < 1e-4);
        assert!(p.point(-0.001).distance(p.point(l - 0.001)) < 1e-4);
        assert!(
            p.tangent(1e-4).dot(p.tangent(l - 1e-4)) > 0.9999,
            "tangent jumps at the seam"
        );
        assert!(p.point(l + 3.0).distance(p.point(3.0)) < 1e-4, "wraps");
    }

    #[test]
    fn explicit_handles_are_used() {
        let p = BezierPath::new(
            &[
                ControlPoint {
                    position: Vec3::ZERO,
                    handle_in: None,
                    handle_out: Some(Vec3::new(2.0, 0.0, 0.0)),
                },
                ControlPoint {
                    position: Vec3::new(6.0, 0.0, 4.0),
                    handle_in: Some(Vec3::new(5.0, 0.0, 1.0)),
                    handle_out: None,
                },
            ],
            false,
        )
        .expect("path");
        assert_eq!(p.segments()[0].p1, Vec3::new(2.0, 0.0, 0.0));
        assert_eq!(p.segments()[0].p2, Vec3::new(5.0, 0.0, 1.0));
        assert!(p.tangent(0.0).dot(Vec3::X) > 0.999);
    }

    #[test]
    fn closest_agrees_with_brute_force() {
        let p = s_curve();
        let mut seed = 1u32;
        for _ in 0..60 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let x = (seed >> 8) as f32 / (1u32 << 24) as f32 * 10.0 - 5.0;
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let z = (seed >> 8) as f32 / (1u32 << 24) as f32 * 12.0 - 1.5;
            let v = Vec3::new(x, 0.5, z);
            let s = p.closest(v);
            let brute = (0..=20_000)
                .map(|k| p.point(p.length() * k as f32 / 20_000.0).distance(v))
                .fold(f32::MAX, f32::min);
            assert!(
                p.point(s).distance(v) <= brute + 1e-3,
                "closest at {v}: {} vs brute {brute}",
                p.point(s).distance(v)
            );
        }
    }

    #[test]
    fn samples_are_evenly_spaced_and_simplify_stays_within_tolerance() {
        let p = s_curve();
        let pts = p.sample(11);
        assert_eq!(pts.len(), 11);
        // Evenly spaced by arc length (not by chord: the S bends between samples).
        for (k, v) in pts.iter().enumerate() {
            let s = p.closest(*v);
            assert!(
                (s - p.length() * k as f32 / 10.0).abs() < 1e-3,
                "sample {k} at arc {s}"
            );
        }
        // A dense wiggle-free path through 40 points on a circle simplifies to far fewer.
        let circle: Vec<ControlPoint> = (0..40)
            .map(|k| {
                let a = k as f32 / 40.0 * std::f32::consts::TAU;
                cp(10.0 * a.cos(), 0.0, 10.0 * a.sin())
            })
            .collect();
        let c = BezierPath::new(&circle, true).expect("circle");
        let s = c.simplify(0.05);
        assert!(s.points().len() < 20, "kept {} points", s.points().len());
        for v in c.sample(400) {
            assert!(s.point(s.closest(v)).distance(v) <= 0.05 + 1e-3);
        }
        assert!(BezierPath::new(&[cp(0.0, 0.0, 0.0)], false).is_err());
        assert_eq!(
            BezierPath::new(&[cp(1.0, 1.0, 1.0), cp(1.0, 1.0, 1.0)], false),
            Err(PathError::ZeroLength)
        );
    }
}
