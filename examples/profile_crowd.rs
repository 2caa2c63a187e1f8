//! The crowd bench's scene (`N` bundled spiders with their wander brain on flat ground,
//! default 1 000) for `TICKS` ticks (default 300) after 90 to settle, at `THREADS` threads
//! (default 2): a target for a profiler (`perf record -g target/release/examples/profile_crowd`)
//! that prints the split the bench prints — the same ticks of the same run each time, so two
//! builds compare tick for tick (unlike criterion's samples).

#![allow(clippy::expect_used)] // a profiling target: a failed set-up is a broken run

use skitter::script::HostOptions;

#[path = "../benches/common/scenes.rs"]
mod scenes;

fn main() -> std::io::Result<()> {
    let (n, ticks, threads) = (
        scenes::env_or("N", 1000),
        scenes::env_or("TICKS", 300),
        scenes::env_or("THREADS", 2),
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
    let s = scenes::crowd_split(&mut host, n, ticks as u32);
    println!(
        "{n} spiders, {threads} threads, {ticks} ticks: {}",
        scenes::split_line(&s)
    );
    Ok(())
}
