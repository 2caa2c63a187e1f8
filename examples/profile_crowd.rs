//! The crowd bench's scene (`N` bundled spiders with their wander brain on flat ground,
//! default 1 000) for `TICKS` ticks (default 300) after 90 to settle, at `THREADS` threads
//! (default 2): a target for a profiler (`perf record -g target/release/examples/profile_crowd`)
//! that prints the split the bench prints — the same ticks of the same run each time, so two
//! builds compare tick for tick (unlike criterion's samples).

#![allow(clippy::expect_used)] // a profiling target: a failed set-up is a broken run

use std::time::{Duration, Instant};

use skitter::script::HostOptions;

#[path = "../benches/common/scenes.rs"]
mod scenes;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> std::io::Result<()> {
    let (n, ticks, threads) = (
        env_or("N", 1000),
        env_or("TICKS", 300),
        env_or("THREADS", 2),
    );
    let dir = tempfile::tempdir()?;
    let mut host = scenes::crowd(
        dir.path(),
        n,
        HostOptions {
            threads,
            ..HostOptions::default()
        },
    );
    for _ in 0..90 {
        host.tick();
    }
    let mut sum = [Duration::ZERO; 4];
    for _ in 0..ticks {
        let t0 = Instant::now();
        host.tick();
        let total = t0.elapsed();
        let st = host.world().last_step_times();
        let world = (st.navigation + st.locomotion + st.physics).saturating_sub(st.overlap);
        sum[0] += total;
        sum[1] += total.saturating_sub(world);
        sum[2] += st.navigation;
        sum[3] += st.locomotion;
    }
    let s = sum.map(|d| d.as_secs_f64() * 1e6 / (ticks * n) as f64);
    println!(
        "{n} spiders, {threads} threads, {ticks} ticks: {:.3} µs a spider-tick = scripts {:.3} + navigation {:.3} + locomotion {:.3} + rest {:.3}",
        s[0],
        s[1],
        s[2],
        s[3],
        s[0] - s[1] - s[2] - s[3]
    );
    Ok(())
}
