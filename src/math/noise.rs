//! Seeded value noise (fractal, 4 octaves) for procedural ground: deterministic on every platform.

/// A 32-bit integer hash of a lattice point and seed (the "squirrel" style mix).
#[inline]
fn hash(ix: i32, iz: i32, seed: u32) -> u32 {
    let mut h = (ix as u32).wrapping_mul(0x27d4_eb2d)
        ^ (iz as u32).wrapping_mul(0x1656_67b1)
        ^ seed.wrapping_mul(0x9e37_79b9);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

#[inline]
fn lattice(ix: i32, iz: i32, seed: u32) -> f32 {
    hash(ix, iz, seed) as f32 / u32::MAX as f32 * 2.0 - 1.0
}

/// Smooth value noise in [-1, 1] at (x, z), unit lattice.
pub(crate) fn value(x: f32, z: f32, seed: u32) -> f32 {
    let (fx, fz) = (x.floor(), z.floor());
    let (ix, iz) = (fx as i32, fz as i32);
    let (tx, tz) = (x - fx, z - fz);
    let sx = tx * tx * (3.0 - 2.0 * tx);
    let sz = tz * tz * (3.0 - 2.0 * tz);
    let a = lattice(ix, iz, seed);
    let b = lattice(ix + 1, iz, seed);
    let c = lattice(ix, iz + 1, seed);
    let d = lattice(ix + 1, iz + 1, seed);
    let ab = a + (b - a) * sx;
    let cd = c + (d - c) * sx;
    ab + (cd - ab) * sz
}

/// Fractal value noise: 4 octaves, each half the amplitude and twice the frequency,
/// normalised to about [-1, 1]. `scale` is the feature size of the first octave in metres.
pub(crate) fn fractal(x: f32, z: f32, scale: f32, seed: u32) -> f32 {
    let mut sum = 0.0;
    let mut amp = 1.0;
    let mut freq = 1.0 / scale.max(1e-3);
    let mut norm = 0.0;
    for octave in 0..4u32 {
        sum += amp
            * value(
                x * freq,
                z * freq,
                seed.wrapping_add(octave.wrapping_mul(7919)),
            );
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    sum / norm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_bounded_and_continuous() {
        let a = fractal(3.3, -1.7, 6.0, 42);
        assert_eq!(a, fractal(3.3, -1.7, 6.0, 42));
        assert_ne!(a, fractal(3.3, -1.7, 6.0, 43));
        for i in 0..2000 {
            let x = i as f32 * 0.013 - 10.0;
            let v = fractal(x, x * 0.7, 4.0, 7);
            assert!((-1.0..=1.0).contains(&v));
            let w = fractal(x + 0.001, x * 0.7, 4.0, 7);
            assert!((v - w).abs() < 0.01, "jump at {x}");
        }
    }
}
