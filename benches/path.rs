//! Bézier paths: a point at an arc length, and building the arc-length table of a 100-point path.

#![allow(clippy::expect_used, missing_docs)] // bench set-up; criterion macros make undocumented items

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use skitter::math::{BezierPath, ControlPoint};

fn points(n: usize) -> Vec<ControlPoint> {
    (0..n)
        .map(|k| {
            let a = k as f32 * 0.37;
            ControlPoint {
                position: Vec3::new(
                    a.cos() * (10.0 + k as f32 * 0.3),
                    (a * 3.0).sin(),
                    a.sin() * (10.0 + k as f32 * 0.3),
                ),
                handle_in: None,
                handle_out: None,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let pts = points(100);
    c.bench_function("path/build_100_points", |b| {
        b.iter(|| BezierPath::new(std::hint::black_box(&pts), false).expect("path"))
    });
    let p = BezierPath::new(&pts, false).expect("path");
    let l = p.length();
    let mut s = 0.0f32;
    c.bench_function("path/point_at_arc_length", |b| {
        b.iter(|| {
            s += 7.31;
            if s > l {
                s -= l;
            }
            std::hint::black_box(p.point(std::hint::black_box(s)))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
