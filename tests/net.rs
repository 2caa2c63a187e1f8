//! Multiplayer: a server and viewers in one process, their packets carried in memory
//! through seeded link conditioners on a virtual clock (and one real-UDP test between two
//! processes). What a viewer draws is measured against the server's own trace.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{bundled, Rec, Trace};
use skitter::headless::{write_tick, write_world, TraceLine};
use skitter::net::{LinkSim, Loopback, NetServer, NetViewer, ServerOptions};
use skitter::script::{HostOptions, ScriptHost};
use skitter::sim::TICK_DT;

const DT: f64 = TICK_DT as f64;

fn demo() -> Vec<PathBuf> {
    ["arena", "spider", "menagerie", "demo"]
        .iter()
        .map(|m| bundled(m))
        .collect()
}

/// A served run: the server's trace and each viewer's.
struct Served {
    server: String,
    viewers: Vec<String>,
    net: Loopback,
}

/// Runs `mods` for `ticks` ticks with a viewer on each link; `each` sees the loopback after
/// every tick (to add viewers, black links out, click).
fn serve(
    mods: &[PathBuf],
    links: &[LinkSim],
    ticks: u64,
    threads: usize,
    mut each: impl FnMut(u64, &mut Loopback, &mut ScriptHost),
) -> Served {
    let mut host = ScriptHost::new(HostOptions {
        threads,
        ..HostOptions::default()
    });
    host.load(mods);
    assert!(host.take_errors().is_empty());
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    for (i, sim) in links.iter().enumerate() {
        net.connect(NetViewer::new(), *sim, i as u64 + 1);
    }
    let mut server = Vec::new();
    let mut viewers = vec![Vec::new(); links.len()];
    write_tick(&mut server, &host).expect("trace");
    for tick in 0..ticks {
        net.server.apply_inputs(&mut host);
        let events = host.tick();
        net.server.after_tick(&host.world(), &events);
        write_tick(&mut server, &host).expect("trace");
        net.pump(DT, &host.world());
        viewers.resize(net.links.len(), Vec::new());
        for (i, l) in net.links.iter().enumerate() {
            if let Some(st) = l.viewer.shown_time() {
                let line = TraceLine {
                    frame: tick,
                    t: net.now(),
                    server_time: Some(st),
                };
                write_world(&mut viewers[i], l.viewer.world(), line, &|_| None).expect("trace");
            }
        }
        each(tick, &mut net, &mut host);
    }
    Served {
        server: String::from_utf8(server).expect("utf8"),
        viewers: viewers
            .into_iter()
            .map(|v| String::from_utf8(v).expect("utf8"))
            .collect(),
        net,
    }
}

/// The server's records by creature, in frame order.
fn by_creature(t: &Trace) -> BTreeMap<u64, Vec<&Rec>> {
    let mut m: BTreeMap<u64, Vec<&Rec>> = BTreeMap::new();
    for r in &t.recs {
        m.entry(r.id).or_default().push(r);
    }
    m
}

fn lerp3(a: [f64; 3], b: [f64; 3], s: f64) -> [f64; 3] {
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * s)
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

/// The server's record pair around time `t` and the share between them.
fn at<'a>(recs: &[&'a Rec], t: f64) -> Option<(&'a Rec, &'a Rec, f64)> {
    let f = t / DT;
    let i = recs.iter().position(|r| r.frame as f64 > f)?;
    if i == 0 {
        return None;
    }
    let (a, b) = (recs[i - 1], recs[i]);
    Some((a, b, (f - a.frame as f64) / (b.frame - a.frame) as f64))
}

/// How a viewer's trace compares with the server's.
#[derive(Debug, Default)]
struct Fidelity {
    samples: usize,
    worst_body: f64,
    worst_plant: f64,
    worst_slide: f64,
    lean_rms: f64,
    /// The body's up (its posture's tilt and the lean) against the server's, RMS degrees.
    tilt_rms: f64,
    /// The server's own tilt from level, RMS degrees (how much there was to follow).
    server_tilt_rms: f64,
    server_accel: f64,
    viewer_accel: f64,
}

fn fidelity(server: &Trace, viewer: &Trace, after: f64) -> Fidelity {
    let s = by_creature(server);
    let v = by_creature(viewer);
    let mut f = Fidelity::default();
    let (mut lean_sq, mut tilt_sq, mut level_sq) = (0.0, 0.0, 0.0);
    for (id, recs) in &v {
        let Some(srv) = s.get(id) else { continue };
        let recs: Vec<&&Rec> = recs
            .iter()
            .filter(|r| r.server_time.is_some_and(|t| t > after))
            .collect();
        // The server's plants of each leg.
        let plants: Vec<Vec<[f64; 3]>> = (0..srv[0].feet.len())
            .map(|k| {
                srv.iter()
                    .filter(|r| r.feet.get(k).is_some_and(|f| f.grounded))
                    .filter_map(|r| r.feet[k].pos)
                    .collect()
            })
            .collect();
        for w in recs.windows(2) {
            for (a, b) in w[0].feet.iter().zip(&w[1].feet) {
                if a.grounded && b.grounded {
                    f.worst_slide = f.worst_slide.max(dist(a.pos.unwrap(), b.pos.unwrap()));
                }
            }
        }
        for r in &recs {
            let st = r.server_time.expect("server_time");
            let Some((a, b, k)) = at(srv, st) else {
                continue;
            };
            f.samples += 1;
            let want = lerp3(a.pos.unwrap(), b.pos.unwrap(), k);
            f.worst_body = f.worst_body.max(dist(want, r.pos.unwrap()));
            for key in ["roll", "pitch"] {
                let want = a.lean(key) + (b.lean(key) - a.lean(key)) * k;
                lean_sq += (r.lean(key) - want).powi(2);
            }
            let (ua, ub, u) = (body_up(a), body_up(b), body_up(r));
            let want = lerp3(ua, ub, k);
            tilt_sq += angle_deg(want, u).powi(2);
            level_sq += angle_deg(want, [0.0, 1.0, 0.0]).powi(2);
            for (leg, foot) in r.feet.iter().enumerate() {
                if !foot.grounded {
                    continue;
                }
                let p = foot.pos.unwrap();
                let near = plants[leg]
                    .iter()
                    .map(|q| dist(*q, p))
                    .fold(f64::MAX, f64::min);
                f.worst_plant = f.worst_plant.max(near);
            }
        }
        f.viewer_accel = f
            .viewer_accel
            .max(max_accel(&recs.iter().map(|r| **r).collect::<Vec<_>>()));
        let srv_after: Vec<&Rec> = srv
            .iter()
            .filter(|r| r.frame as f64 * DT > after)
            .copied()
            .collect();
        f.server_accel = f.server_accel.max(max_accel(&srv_after));
    }
    f.lean_rms = (lean_sq / (2 * f.samples.max(1)) as f64).sqrt();
    f.tilt_rms = (tilt_sq / f.samples.max(1) as f64).sqrt();
    f.server_tilt_rms = (level_sq / f.samples.max(1) as f64).sqrt();
    f
}

/// A record's body up (its rotation applied to +Y).
fn body_up(r: &Rec) -> [f64; 3] {
    let [x, y, z, w] = r.rot.expect("rot");
    [
        2.0 * (x * y - w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + w * x),
    ]
}

/// The angle between two directions, degrees.
fn angle_deg(a: [f64; 3], b: [f64; 3]) -> f64 {
    let dot: f64 = (0..3).map(|k| a[k] * b[k]).sum();
    let n = |v: [f64; 3]| (0..3).map(|k| v[k] * v[k]).sum::<f64>().sqrt();
    (dot / (n(a) * n(b)).max(1e-12))
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

/// The body's largest acceleration over a trace of 60 Hz records (m/s²), from second
/// differences of position over 3 frames (the same on both sides).
fn max_accel(recs: &[&Rec]) -> f64 {
    max_second_diff(&recs.iter().map(|r| r.pos.unwrap()).collect::<Vec<_>>())
}

/// The largest second difference over 3 frames of points sampled at 60 Hz, per s².
fn max_second_diff(points: &[[f64; 3]]) -> f64 {
    let h = 3;
    let dt = h as f64 * DT;
    let mut worst = 0.0f64;
    for i in h..points.len().saturating_sub(h) {
        let (a, b, c) = (points[i - h], points[i], points[i + h]);
        let acc = (0..3)
            .map(|k| ((a[k] - 2.0 * b[k] + c[k]) / (dt * dt)).powi(2))
            .sum::<f64>()
            .sqrt();
        worst = worst.max(acc);
    }
    worst
}

#[test]
fn a_viewer_on_a_bad_link_draws_what_the_server_had() {
    let link: LinkSim = "latency=100,jitter=20,loss=2".parse().expect("sim");
    let run = serve(&demo(), &[link], 900, 1, |_, _, _| {});
    let server = Trace::parse(&run.server);
    let viewer = Trace::parse(&run.viewers[0]);
    let fig = run.net.links[0].viewer.figures();
    let f = fidelity(&server, &viewer, 3.0);
    eprintln!("{f:?}\n{fig:?}");
    // Snapshots are cut to 1 100 B; a reliable message longer than renet's (patched) slice
    // (a join's types and spawns) goes in slices of 1 136 B. With netcode's header and MAC
    // (at most 25 B) no UDP datagram passes 1 200 B.
    let largest = run.net.links[0].down.largest;
    eprintln!("largest packet {largest} B");
    assert!(largest + 25 <= 1200, "a {largest} B packet");
    assert!(
        largest > 1000,
        "no long message was sliced: {largest} B at most"
    );
    assert!(f.samples > 1000, "{f:?}");
    assert!(f.worst_body < 0.05, "a body 5 cm off: {f:?}");
    assert!(
        f.worst_plant < 0.01,
        "a planted foot 1 cm off the server's plants: {f:?}"
    );
    assert!(f.worst_slide < 1e-4, "a planted foot slid: {f:?}");
    assert!(f.lean_rms < 1.0, "lean off by more than 1° RMS: {f:?}");
    // The viewer tilts each body on the feet it shows (its own posture fit): on the arena's
    // noise and ramp the server's bodies tilt, and the viewer's follow within 1° RMS.
    assert!(f.server_tilt_rms > 1.0, "nothing tilted to follow: {f:?}");
    assert!(
        f.tilt_rms < 1.0,
        "the posture's tilt off by more than 1° RMS: {f:?}"
    );
    assert!(
        f.viewer_accel <= f.server_accel * 1.25 + 0.5,
        "the viewer's bodies pop: {f:?}"
    );
    assert!(fig.delay < 0.25, "{fig:?}");
}

#[test]
fn the_servers_trace_is_the_same_with_no_viewer_and_with_eight_at_any_thread_count() {
    let link: LinkSim = "latency=30,jitter=10,loss=3,dup=1,reorder=2"
        .parse()
        .expect("sim");
    let alone = serve(&demo(), &[], 240, 1, |_, _, _| {}).server;
    let eight = serve(&demo(), &[link; 8], 240, 1, |_, _, _| {});
    let two = serve(&demo(), &[link; 8], 240, 2, |_, _, _| {}).server;
    assert!(alone.lines().count() > 240 * 8);
    assert!(
        alone == eight.server,
        "eight viewers changed the server's trace"
    );
    assert!(
        alone == two,
        "two threads with viewers changed the server's trace"
    );
    // And the eight did see the world.
    for l in &eight.net.links {
        assert_eq!(l.viewer.world().creatures().len(), 8);
    }
}

/// Seconds during which some body the viewer draws is more than `bar` from where the
/// server had it at the time shown, after `from`.
fn off_seconds(server: &Trace, viewer: &Trace, from: f64, bar: f64) -> Vec<f64> {
    let s = by_creature(server);
    let mut out = Vec::new();
    for r in &viewer.recs {
        let st = r.server_time.expect("server_time");
        if st < from {
            continue;
        }
        let Some((a, b, k)) = s.get(&r.id).and_then(|recs| at(recs, st)) else {
            continue;
        };
        let want = lerp3(a.pos.unwrap(), b.pos.unwrap(), k);
        if dist(want, r.pos.unwrap()) > bar {
            out.push(r.t_local());
        }
    }
    out
}

trait Local {
    fn t_local(&self) -> f64;
}

impl Local for Rec {
    /// The viewer's own time of a line (its frame at 60 Hz).
    fn t_local(&self) -> f64 {
        self.frame as f64 * DT
    }
}

#[test]
fn five_percent_loss_leaves_no_frame_unbracketed_and_a_blackout_heals_fast() {
    let link: LinkSim = "latency=100,jitter=20,loss=5".parse().expect("sim");
    // A minute and 5 s: a 1 s blackout (both ways) at 61 s.
    let mut unbracketed = None;
    let run = serve(&demo(), &[link], 66 * 60, 1, |tick, net, _| {
        if tick == 10 {
            let l = &mut net.links[0];
            l.down.blackout(61.0, 62.0);
            l.up.blackout(61.0, 62.0);
        }
        if tick == 61 * 60 {
            unbracketed = Some(net.links[0].viewer.figures().unbracketed);
        }
    });
    // No frame in the minute before the blackout showed a moving body past its newest state.
    assert_eq!(
        unbracketed,
        Some(0),
        "creature-frames without a bracketing snapshot in a minute at 5 % loss"
    );
    let fig = run.net.links[0].viewer.figures();
    eprintln!("{fig:?}");
    let server = Trace::parse(&run.server);
    let viewer = Trace::parse(&run.viewers[0]);
    // The bodies of the minute before it.
    let before: Vec<&Rec> = viewer.recs.iter().filter(|r| r.t_local() < 60.0).collect();
    assert!(before.len() > 55 * 60 * 8);
    let f = fidelity(
        &server,
        &Trace {
            recs: before.into_iter().cloned().collect(),
            events: Vec::new(),
        },
        3.0,
    );
    assert!(f.worst_body < 0.05 && f.worst_slide < 1e-4, "{f:?}");
    // Unbracketed creature-frames: only around the blackout.
    let off = off_seconds(&server, &viewer, 3.0, 0.05);
    let outside: Vec<&f64> = off.iter().filter(|t| !(61.0..65.0).contains(*t)).collect();
    assert!(
        outside.is_empty(),
        "bodies off the server's outside the blackout at {outside:?}"
    );
    // Back on the server's state within two buffer delays of the link's return.
    let healed = off.iter().copied().fold(0.0f64, f64::max);
    let back = 62.0 + link.latency + 2.0 * fig.delay;
    assert!(
        healed <= back,
        "still off at {healed:.2} s (the link came back at 62 s; bar {back:.2})"
    );
    assert!(
        fig.loss > 0.0 && fig.loss < 0.15,
        "the viewer measures the loss: {fig:?}"
    );
}

/// Three spiders standing still in the arena (no brain moves them), for clicks.
fn still_spiders(dir: &std::path::Path) -> Vec<PathBuf> {
    let m = common::temp_mod(
        dir,
        "still",
        &[
            (
                "mod.toml",
                "name = \"still\"\nversion = \"0.1.0\"\ndepends = [\"spider\", \"arena\"]\n",
            ),
            (
                "main.lua",
                "behaviour.define { name = \"idle\" }\n\
                 for i = -1, 1 do\n\
                   world.spawn(\"spider/spider\", { position = vec3(i * 3, 0, -4), behaviour = \"idle\" })\n\
                 end\n",
            ),
        ],
    );
    vec![bundled("arena"), bundled("spider"), m]
}

#[test]
fn a_viewers_clicks_walk_a_creature_and_knock_one_over_on_the_server_and_every_viewer() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = still_spiders(dir.path());
    let link: LinkSim = "latency=50,jitter=10,loss=1".parse().expect("sim");
    let to = glam::Vec3::new(-3.0, 0.0, 2.0);
    let run = serve(&mods, &[link, link], 600, 1, |tick, net, host| {
        let ids: Vec<_> = host.world().creatures().iter().map(|c| c.id).collect();
        if tick == 60 {
            net.links[0].viewer.walk(ids[0], to);
        }
        if tick == 120 {
            net.links[0].viewer.knock(ids[2], glam::Vec3::X);
        }
    });
    let server = Trace::parse(&run.server);
    let ids = server.ids();
    let walker = server.of(ids[0]);
    let end = walker.last().expect("recs").pos.unwrap();
    assert!(
        dist([end[0], 0.0, end[2]], [to.x as f64, 0.0, to.z as f64]) < 0.8,
        "the clicked spider ended at {end:?}, not near {to}"
    );
    assert!(
        server.of(ids[2]).iter().any(|r| r.ragdoll),
        "K did not knock it over on the server"
    );
    assert!(server.of(ids[1]).iter().all(|r| !r.ragdoll));
    for v in &run.viewers {
        let v = Trace::parse(v);
        let fell = v.of(ids[2]);
        assert!(
            fell.iter().any(|r| r.ragdoll),
            "a viewer never showed the fall"
        );
        // Its parts where the server had them at the time shown.
        let srv = server.of(ids[2]);
        let mut worst = [0.0f64; 2];
        for r in fell.iter().filter(|r| r.ragdoll) {
            let Some((a, b, k)) = at(&srv, r.server_time.unwrap()) else {
                continue;
            };
            if !(a.ragdoll && b.ragdoll) || a.parts.len() != r.parts.len() {
                continue;
            }
            for (i, p) in r.parts.iter().enumerate() {
                let want = lerp3(a.parts[i].0, b.parts[i].0, k);
                let w = &mut worst[usize::from(i > 0)];
                *w = w.max(dist(want, p.0));
            }
        }
        eprintln!(
            "ragdoll parts off by: body {:.3} m, limbs {:.3} m",
            worst[0], worst[1]
        );
        assert!(worst[0] < 0.03 && worst[1] < 0.05, "{worst:?}");
        let last = v.of(ids[0]).last().expect("recs").pos.unwrap();
        assert!(
            dist(last, end) < 0.3,
            "a viewer shows the walker at {last:?}, the server at {end:?}"
        );
    }
    assert_eq!(run.net.server.dropped().invalid, 0);
}

#[test]
fn a_watch_only_server_drops_inputs_and_counts_them() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = still_spiders(dir.path());
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&mods);
    let opts = ServerOptions {
        mode: skitter::net::ViewerMode::Watch,
        ..ServerOptions::default()
    };
    let mut net = Loopback::new(NetServer::new(opts));
    net.connect(NetViewer::new(), LinkSim::default(), 1);
    for tick in 0..120 {
        if tick == 30 {
            let id = host.world().creatures()[0].id;
            net.links[0].viewer.walk(id, glam::Vec3::new(5.0, 0.0, 5.0));
        }
        net.server.apply_inputs(&mut host);
        let events = host.tick();
        net.server.after_tick(&host.world(), &events);
        net.pump(DT, &host.world());
    }
    assert!(!net.links[0].viewer.may_play());
    assert_eq!(net.server.dropped().not_allowed, 1);
    let w = host.world();
    assert!(
        w.creatures()[0].nav.is_none(),
        "a watcher's click moved a creature"
    );
}

/// A good viewer and a hostile one on the demo; `bad` acts on the hostile link each tick.
/// Returns the loopback at the end and the good viewer's fidelity.
fn hostile(
    mut bad: impl FnMut(u64, &mut skitter::net::Link, &ScriptHost),
) -> (Loopback, Fidelity, usize) {
    let link: LinkSim = "latency=40,jitter=5".parse().expect("sim");
    let run = serve(&demo(), &[link, link], 300, 1, |tick, net, host| {
        if (60..240).contains(&tick) {
            bad(tick, &mut net.links[1], host);
        }
    });
    let server = Trace::parse(&run.server);
    let good = Trace::parse(&run.viewers[0]);
    let f = fidelity(&server, &good, 2.0);
    assert!(
        f.samples > 1000 && f.worst_body < 0.05,
        "the good viewer suffered: {f:?}"
    );
    let frames = server.recs.iter().map(|r| r.frame).max().unwrap_or(0);
    assert_eq!(frames, 300, "the server's world stopped");
    let viewers = run.net.server.viewers();
    (run.net, f, viewers)
}

#[test]
fn hostile_garbage_packets_cut_their_sender_off_and_nobody_else() {
    let (net, _, viewers) = hostile(|tick, l, _| {
        l.inject
            .push((0..200).map(|i| (i * 37 + tick) as u8).collect());
    });
    assert_eq!(viewers, 1, "the sender of garbage is still connected");
    assert_eq!(net.server.dropped().broken, 1);
    assert!(matches!(
        net.links[1].viewer.status(),
        skitter::net::ViewerStatus::Disconnected(_)
    ));
}

#[test]
fn hostile_oversized_packets_cut_their_sender_off() {
    let (_, _, viewers) = hostile(|_, l, _| l.inject.push(vec![0xAB; 64 * 1024]));
    assert_eq!(viewers, 1);
}

#[test]
fn hostile_replayed_packets_change_nothing() {
    let mut taped = false;
    let (net, _, viewers) = hostile(|tick, l, host| {
        if tick == 60 {
            l.tap = Some(Vec::new());
            let id = host.world().creatures()[0].id;
            l.viewer.walk(id, glam::Vec3::new(1.0, 0.0, 1.0));
        }
        if tick > 70 {
            if let Some(t) = l.tap.take() {
                taped = !t.is_empty();
                for _ in 0..20 {
                    l.inject.extend(t.iter().cloned());
                }
            }
        }
    });
    assert!(taped);
    assert_eq!(viewers, 2, "replays got a viewer cut off");
    assert_eq!(
        net.server.dropped().flooded,
        0,
        "a replayed input counted again"
    );
}

#[test]
fn hostile_floods_of_inputs_are_dropped_then_cut_off() {
    let (net, _, viewers) = hostile(|_, l, host| {
        let id = host.world().creatures()[0].id;
        for _ in 0..40 {
            l.viewer.walk(id, glam::Vec3::new(2.0, 0.0, 2.0));
        }
    });
    let d = net.server.dropped();
    assert!(d.flooded > 64, "{d:?}");
    assert_eq!(d.disconnected, 1, "{d:?}");
    assert_eq!(viewers, 1);
}

#[test]
fn hostile_malformed_messages_and_inputs_for_nobody_are_counted_and_cut_off() {
    let (net, _, viewers) = hostile(|tick, l, _| {
        if tick % 2 == 0 {
            l.viewer
                .renet()
                .send_message(skitter::net::channel::BULK, vec![0xFF, 0x13, 0x37]);
        } else {
            l.viewer
                .walk(skitter::sim::CreatureId(9999), glam::Vec3::ZERO);
        }
    });
    let d = net.server.dropped();
    assert!(d.malformed > 0 && d.invalid > 0, "{d:?}");
    assert_eq!(d.disconnected, 1, "{d:?}");
    assert_eq!(viewers, 1);
}

#[test]
fn inputs_with_values_out_of_range_are_refused() {
    let (net, _, _) = hostile(|tick, l, host| {
        if tick == 100 {
            let id = host.world().creatures()[0].id;
            l.viewer.walk(id, glam::Vec3::new(f32::NAN, 0.0, 1.0));
            l.viewer.knock(id, glam::Vec3::new(1e30, 0.0, 0.0));
        }
    });
    assert_eq!(net.server.dropped().invalid, 2);
}

/// A thousand wandering spiders in the arena.
fn thousand(dir: &std::path::Path) -> Vec<PathBuf> {
    let m = common::temp_mod(
        dir,
        "crowd",
        &[
            (
                "mod.toml",
                "name = \"crowd\"\nversion = \"0.1.0\"\ndepends = [\"spider\", \"arena\"]\n",
            ),
            (
                "main.lua",
                "for i = 0, 999 do\n\
                   local x, z = (i % 40) - 19.5, math.floor(i / 40) - 12\n\
                   world.spawn(\"spider/spider\", { position = vec3(x * 0.95, 0, z * 1.5), params = { radius = 4 } })\n\
                 end\n",
            ),
        ],
    );
    vec![bundled("arena"), bundled("spider"), m]
}

#[test]
fn a_viewer_joining_a_running_world_of_a_thousand_draws_them_within_a_second() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = thousand(dir.path());
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&mods);
    assert!(host.take_errors().is_empty());
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    let mut joined_at = None;
    let mut drawn_at = None;
    for tick in 0..150u64 {
        if tick == 60 {
            net.connect(NetViewer::new(), LinkSim::default(), 1);
            joined_at = Some(net.now());
        }
        let events = host.tick();
        net.server.after_tick(&host.world(), &events);
        net.pump(DT, &host.world());
        if let (Some(_), None) = (joined_at, drawn_at) {
            let v = &net.links[0].viewer;
            let drawn = v.world().creatures().len();
            if drawn == 1000 && v.shown_time().is_some() {
                drawn_at = Some(net.now());
            }
        }
    }
    let took = drawn_at.expect("never drew the thousand") - joined_at.expect("joined");
    eprintln!("a late join drew 1000 creatures {took:.3} s after connecting");
    assert!(took <= 1.0, "{took:.3} s");
    // And every one of them is where the server has it, within a buffer delay's walk.
    let v = &net.links[0].viewer;
    let w = host.world();
    let far = v
        .world()
        .creatures()
        .iter()
        .filter(|c| {
            let s = w.creature(c.id).expect("on the server");
            s.loco.position.distance(c.loco.position) > 0.5
        })
        .count();
    assert_eq!(
        far,
        0,
        "{far} creatures far from the server's: {:?} {:?}",
        v.figures(),
        net.server.snapshot_stats()
    );
}

#[test]
fn a_viewer_of_another_version_is_told_what_differs() {
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&demo());
    let mut server = NetServer::new(ServerOptions::default());
    server.set_version("9.9.9");
    let mut net = Loopback::new(server);
    net.connect(NetViewer::new(), LinkSim::default(), 1);
    for _ in 0..30 {
        let events = host.tick();
        net.server.after_tick(&host.world(), &events);
        net.pump(DT, &host.world());
    }
    match net.links[0].viewer.status() {
        skitter::net::ViewerStatus::Refused(why) => {
            assert!(
                why.contains("9.9.9") && why.contains(env!("CARGO_PKG_VERSION")),
                "{why}"
            );
            assert!(why.starts_with("version differs"), "{why}");
        }
        s => panic!("not refused: {s:?}"),
    }
    assert!(net.links[0].viewer.world().creatures().is_empty());
}

/// `skitter serve` as a process on 127.0.0.1 (any free port) with `args` before the demo's
/// mods (`display`: in a window there): the process, the address it said it serves on, and
/// a thread reading the rest of its output (so it never blocks on a full pipe).
fn spawn_serve(
    args: &[&str],
    display: Option<&str>,
) -> (
    std::process::Child,
    String,
    std::thread::JoinHandle<Vec<String>>,
) {
    use std::io::BufRead;
    let mut all: Vec<String> = ["serve", "--bind", "127.0.0.1", "--port", "0"]
        .iter()
        .chain(args)
        .map(|s| s.to_string())
        .collect();
    all.extend(demo().iter().map(|m| m.display().to_string()));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_skitter"));
    cmd.args(&all)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    match display {
        Some(d) => cmd.env("DISPLAY", d).env_remove("WAYLAND_DISPLAY"),
        None => cmd.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY"),
    };
    let mut server = cmd.spawn().expect("serve runs");
    let mut lines = std::io::BufReader::new(server.stdout.take().expect("stdout")).lines();
    let addr = loop {
        let l = lines
            .next()
            .expect("serve said where it listens")
            .expect("line");
        if let Some(a) = l.strip_prefix("serving on ") {
            break a.trim().to_string();
        }
    };
    let rest = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
    (server, addr, rest)
}

/// Waits for a served process to end by itself: its exit, the rest of its stdout, stderr.
fn serve_ends(
    mut server: std::process::Child,
    rest: std::thread::JoinHandle<Vec<String>>,
) -> (std::process::ExitStatus, Vec<String>, String) {
    let status = server.wait().expect("serve ends by itself");
    let mut err = String::new();
    if let Some(mut e) = server.stderr.take() {
        std::io::Read::read_to_string(&mut e, &mut err).ok();
    }
    (status, rest.join().expect("reader"), err)
}

/// `skitter serve` and `skitter join` as two processes on 127.0.0.1 over real UDP, each
/// bounded in frames and stopping by itself.
#[test]
fn serve_and_join_as_two_processes_over_udp_on_loopback() {
    let dir = tempfile::tempdir().expect("tmp");
    let (server, addr, rest) = spawn_serve(&["--headless", "--frames", "900"], None);
    let trace = dir.path().join("view.jsonl");
    let t = trace.display().to_string();
    let wav = dir.path().join("view.wav");
    let w = wav.display().to_string();
    let o = common::skitter_within(
        &[
            "join",
            &addr,
            "--headless",
            "--frames",
            "150",
            "--trace",
            &t,
            "--audio-out",
            &w,
        ],
        std::time::Duration::from_secs(60),
        "join hung",
    );
    let out = common::text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("joined"), "{out}");
    // Every datagram within 1 200 B, the join's long messages (types, level, spawns) sliced.
    let largest: usize = out
        .split("largest datagram ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no largest datagram in {out}"));
    assert!(
        (1000..=1200).contains(&largest),
        "a {largest} B datagram: {out}"
    );
    let viewer = Trace::parse(&std::fs::read_to_string(&trace).expect("trace"));
    assert!(viewer.ids().len() == 8, "{:?}", viewer.ids());
    // What it showed was heard: a tick's block a frame, the feet's voices in it.
    let mut r = hound::WavReader::open(&wav).expect("the viewer's WAV");
    let samples: Vec<i16> = r.samples::<i16>().map(|s| s.expect("sample")).collect();
    assert_eq!(samples.len(), 151 * 800 * 2, "{out}");
    let voices: u64 = out
        .split("s): ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no audio line in {out}"));
    assert!(voices > 10, "{out}");
    assert!(samples.iter().any(|s| s.unsigned_abs() > 1000), "{out}");
    assert!(viewer.recs.iter().all(|r| r.server_time.is_some()));
    let moved = viewer
        .recs
        .iter()
        .filter(|r| r.vel.is_some_and(|v| v[0].abs() + v[2].abs() > 0.1))
        .count();
    assert!(moved > 100, "nobody walked on the viewer: {moved}");
    // A second join, drawing what it shows.
    let png = dir.path().join("join.png");
    let p = png.display().to_string();
    let o = common::skitter_within(
        &[
            "join",
            &addr,
            "--screenshot",
            &p,
            "--frames",
            "90",
            "--size",
            "320x180",
        ],
        std::time::Duration::from_secs(60),
        "join --screenshot hung",
    );
    let out = common::text(&o);
    if !o.status.success() && out.contains("no GPU adapter") {
        assert!(!common::ci(), "CI=true but no GPU adapter:\n{out}");
        eprintln!(
            "\n!!!!! SKIPPED the join screenshot: no GPU adapter on this machine !!!!!\n{out}"
        );
    } else {
        assert!(o.status.success(), "{out}");
        assert!(out.contains("8 creatures"), "{out}");
        // The `net` layer draws each body's latest snapshot in yellow beside it.
        let net_png = dir.path().join("join_net.png");
        let q = net_png.display().to_string();
        let o = common::skitter_within(
            &[
                "join",
                &addr,
                "--screenshot",
                &q,
                "--frames",
                "90",
                "--size",
                "320x180",
                "--debug",
                "net",
            ],
            std::time::Duration::from_secs(60),
            "join --screenshot hung",
        );
        assert!(o.status.success(), "{}", common::text(&o));
        let (plain, net) = (yellow_pixels(&png), yellow_pixels(&net_png));
        assert!(
            net > plain + 20,
            "the net layer drew nothing: {plain} then {net} yellow pixels"
        );
    }
    let (status, rest, err) = serve_ends(server, rest);
    assert!(status.success(), "{rest:?} {err}");
}

/// Pixels of the `net` layer's yellow in a PNG.
fn yellow_pixels(p: &std::path::Path) -> usize {
    common::count_pixels(p, |c| c[0] > 200 && c[1] > 170 && c[2] < 90)
}

/// A mod with the shared fox model (copied into a temporary folder, never the repository)
/// and two foxes wandering the arena.
fn foxes(dir: &std::path::Path) -> Vec<PathBuf> {
    let m = dir.join("foxes");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    std::fs::copy(
        common::assets().join("fox/fox.glb"),
        m.join("assets/fox.glb"),
    )
    .expect("fox");
    std::fs::write(
        m.join("mod.toml"),
        "name = \"foxes\"\nversion = \"0.1.0\"\ndepends = [\"spider\", \"arena\"]\n",
    )
    .expect("toml");
    std::fs::write(
        m.join("main.lua"),
        "creature.define { name = \"fox\", model = { file = \"assets/fox.glb\", scale = 0.01 }, behaviour = \"spider/wander\" }\n\
         world.spawn(\"fox\", { position = vec3(2, 0, 0) })\n\
         world.spawn(\"fox\", { position = vec3(-2, 0, 0) })\n",
    )
    .expect("lua");
    vec![bundled("arena"), bundled("spider"), m]
}

/// Runs `mods` with one viewer on a cache folder until it draws every model type with its
/// own model; returns the viewer's figures and the server's asset bytes.
fn join_with_cache(
    mods: &[PathBuf],
    cache: &std::path::Path,
) -> (skitter::net::ViewerFigures, u64, Vec<String>) {
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(mods);
    let errors: Vec<String> = host.take_errors().iter().map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    net.connect(
        NetViewer::with_cache(cache.to_path_buf()),
        LinkSim::default(),
        1,
    );
    for _ in 0..90 {
        net.server.sync_mods(&host);
        let events = host.tick();
        net.server.after_tick(&host.world(), &events);
        net.pump(DT, &host.world());
    }
    let v = &net.links[0].viewer;
    let drawn: Vec<String> = v
        .world()
        .types()
        .iter()
        .filter(|t| t.model.as_ref().is_some_and(|m| !m.generated))
        .map(|t| t.name.clone())
        .collect();
    (v.figures(), net.server.asset_bytes(), drawn)
}

#[test]
fn assets_reach_viewers_by_hash_once_and_a_missing_one_is_fetched_again() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = foxes(dir.path());
    let cache = dir.path().join("cache");
    let size = std::fs::metadata(dir.path().join("foxes/assets/fox.glb"))
        .expect("fox")
        .len();
    let (first, sent, drawn) = join_with_cache(&mods, &cache);
    assert_eq!(drawn, ["foxes/fox"], "{first:?}");
    assert_eq!(first.asset_bytes, size, "{first:?}");
    assert_eq!(sent, size);
    // A second join with the same cache moves no asset bytes, and still draws the fox.
    let (second, sent, drawn) = join_with_cache(&mods, &cache);
    assert_eq!(drawn, ["foxes/fox"]);
    assert_eq!((second.asset_bytes, sent), (0, 0), "{second:?}");
    // One file gone from the cache: fetched again by its hash, and only it.
    let files: Vec<_> = std::fs::read_dir(cache.join("assets"))
        .expect("cache")
        .flatten()
        .collect();
    assert_eq!(files.len(), 1);
    std::fs::remove_file(files[0].path()).expect("rm");
    let (third, sent, drawn) = join_with_cache(&mods, &cache);
    assert_eq!(drawn, ["foxes/fox"]);
    assert_eq!((third.asset_bytes, sent), (size, size));
}

#[test]
fn hostile_asset_requests_for_what_the_manifest_does_not_hold_are_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = foxes(dir.path());
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&mods);
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    net.connect(
        NetViewer::with_cache(dir.path().join("c1")),
        LinkSim::default(),
        1,
    );
    net.connect(
        NetViewer::with_cache(dir.path().join("c2")),
        LinkSim::default(),
        2,
    );
    for tick in 0..200 {
        net.server.sync_mods(&host);
        let events = host.tick();
        net.server.after_tick(&host.world(), &events);
        net.pump(DT, &host.world());
        if tick > 30 {
            // Hashes of files no manifest lists: the mod's own script, /etc/passwd's.
            for f in ["foxes/main.lua", "/etc/passwd"] {
                let bytes =
                    std::fs::read(dir.path().join(f)).unwrap_or_else(|_| f.as_bytes().to_vec());
                let hash: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(&bytes).into();
                net.links[1].viewer.request_asset(hash);
            }
        }
    }
    let d = net.server.dropped();
    assert!(d.unknown_asset > 0, "{d:?}");
    assert_eq!(d.disconnected, 1, "{d:?}");
    assert_eq!(net.server.viewers(), 1);
    assert_eq!(
        net.links[0].viewer.figures().models,
        1,
        "the good viewer lost its fox"
    );
}

#[test]
fn a_hot_reload_on_the_server_reaches_its_viewers() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut live = common::Live::default();
    let m = common::live_mod(dir.path(), &live);
    let link: LinkSim = "latency=60,jitter=10,loss=2".parse().expect("sim");
    let run = serve(
        std::slice::from_ref(&m),
        &[link],
        300,
        1,
        |tick, _, host| {
            if tick == 100 {
                live.step = 0.2;
                live.ground_y = 0.3;
                live.spawns = 3;
                std::fs::write(m.join("main.lua"), live.source()).expect("save");
                let changed =
                    BTreeMap::from([("live".to_string(), vec![PathBuf::from("main.lua")])]);
                let r = host.reload(&changed);
                assert!(r.len() == 1 && r[0].ok, "{r:?}");
            }
        },
    );
    let v = &run.net.links[0].viewer;
    let w = v.world();
    let bug = w
        .types()
        .iter()
        .find(|t| t.name == "live/bug")
        .expect("the type");
    assert!(
        (bug.def.gait.step_height - 0.2).abs() < 1e-6,
        "{}",
        bug.def.gait.step_height
    );
    assert_eq!(w.creatures().len(), 3);
    let g = w.level().ground.as_ref().expect("ground");
    assert!(
        (g.origin.y - 0.3).abs() < 1e-4,
        "the viewer's ground at {}",
        g.origin.y
    );
    // And its bugs stand on the new ground, where the server's do.
    let server = Trace::parse(&run.server);
    let viewer = Trace::parse(&run.viewers[0]);
    let f = fidelity(&server, &viewer, 2.5);
    assert!(f.worst_body < 0.05 && f.worst_plant < 0.01, "{f:?}");
}

/// A headless viewer started before its server (or while the server is still opening its
/// window on a busy machine) counts its `--frames` from the welcome: it waits past more
/// than its frames' worth of time, then shows the world for the frames asked.
#[test]
fn a_headless_join_counts_its_frames_from_the_servers_welcome() {
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .expect("a free port")
        .port();
    let addr = format!("127.0.0.1:{port}");
    let dir = tempfile::tempdir().expect("tmp");
    let trace = dir.path().join("late.jsonl");
    let t = trace.display().to_string();
    let join = {
        let addr = addr.clone();
        std::thread::spawn(move || {
            common::skitter_within(
                &["join", &addr, "--headless", "--frames", "30", "--trace", &t],
                std::time::Duration::from_secs(60),
                "join hung",
            )
        })
    };
    // 1.5 s: ninety of the viewer's frames go by before anyone answers.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut args: Vec<String> = ["serve", "--headless", "--bind", "127.0.0.1", "--port"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend([port.to_string(), "--frames".into(), "300".into()]);
    args.extend(demo().iter().map(|m| m.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let served = common::skitter_within(&args, std::time::Duration::from_secs(60), "serve hung");
    assert!(served.status.success(), "{}", common::text(&served));
    let o = join.join().expect("join thread");
    assert!(o.status.success(), "{}", common::text(&o));
    assert!(
        common::text(&o).contains(&format!("joined {addr}")),
        "{}",
        common::text(&o)
    );
    let viewer = Trace::parse(&std::fs::read_to_string(&trace).expect("trace"));
    assert_eq!(viewer.ids().len(), 8, "the demo's creatures, shown");
    let frames: std::collections::BTreeSet<u64> = viewer.recs.iter().map(|r| r.frame).collect();
    // Thirty frames from the welcome, less the jitter buffer's few before the first shown.
    assert!(
        (15..=30).contains(&frames.len()),
        "{} frames shown",
        frames.len()
    );
}

/// The server in its window and a viewer in another, under Xvfb (as a user at a desk
/// would run them); a headless viewer's trace in between shows the world travelled.
#[test]
fn a_server_window_and_a_viewer_window_under_xvfb() {
    let Some((mut xvfb, display)) = common::xvfb(350) else {
        return;
    };
    let (server, addr, rest) = spawn_serve(&["--frames", "200"], Some(&display));
    let dir = tempfile::tempdir().expect("tmp");
    let trace = dir.path().join("v.jsonl");
    let t = trace.display().to_string();
    let o = common::skitter_within(
        &["join", &addr, "--headless", "--frames", "90", "--trace", &t],
        std::time::Duration::from_secs(60),
        "join hung",
    );
    assert!(o.status.success(), "{}", common::text(&o));
    let viewer = Trace::parse(&std::fs::read_to_string(&trace).expect("trace"));
    assert_eq!(viewer.ids().len(), 8);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(["join", &addr, "--frames", "40"])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("join runs");
    let out = common::text(&o);
    let (status, rest, err) = serve_ends(server, rest);
    let _ = xvfb.kill();
    let _ = xvfb.wait();
    if out.contains("no GPU adapter") || err.contains("no GPU adapter") {
        assert!(
            !common::ci(),
            "CI=true but no GPU adapter for the windows:\n{out}\n{err}"
        );
        eprintln!("\n!!!!! SKIPPED the windows: no GPU adapter !!!!!\n{out}\n{err}");
        return;
    }
    assert!(o.status.success() && out.contains("joined"), "{out}");
    assert!(!out.contains("panicked"), "{out}");
    assert!(status.success(), "{rest:?}\n{err}");
    assert!(
        !err.contains("serving headless"),
        "the server's window did not open:\n{err}"
    );
}

/// The server's `--record` keeps a viewer's clicks as it keeps a window's: `skitter run
/// --replay` of it gives the served run's trace, line for line.
#[test]
fn a_served_session_with_a_viewers_clicks_replays_from_the_servers_record() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = still_spiders(dir.path());
    let record = dir.path().join("session.jsonl");
    let (mut tape, opts) =
        skitter::headless::Tape::open(Some(record.clone()), None, &HostOptions::default())
            .expect("tape");
    let mut host = ScriptHost::new(opts);
    host.load(&mods);
    tape.start(&mut host, &mut std::io::sink()).expect("record");
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    net.connect(
        NetViewer::new(),
        "latency=40,jitter=5".parse().expect("sim"),
        1,
    );
    let mut served = Vec::new();
    write_tick(&mut served, &host).expect("trace");
    let ticks = 400;
    for tick in 0..ticks {
        let ids: Vec<_> = host.world().creatures().iter().map(|c| c.id).collect();
        if tick == 30 {
            net.links[0]
                .viewer
                .walk(ids[1], glam::Vec3::new(2.0, 0.0, 1.0));
        }
        if tick == 90 {
            net.links[0].viewer.knock(ids[0], glam::Vec3::Z);
        }
        tape.before_tick(&mut host).expect("tape");
        net.server.apply_inputs(&mut host);
        let events = host.tick();
        tape.after_tick(&mut host).expect("tape");
        net.server.after_tick(&host.world(), &events);
        write_tick(&mut served, &host).expect("trace");
        net.pump(DT, &host.world());
    }
    tape.finish().expect("flush");
    let served = String::from_utf8(served).expect("utf8");
    let trace = dir.path().join("replay.jsonl");
    let mut args: Vec<String> = [
        "run",
        "--headless",
        "--frames",
        &ticks.to_string(),
        "--replay",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(record.display().to_string());
    args.push("--trace".into());
    args.push(trace.display().to_string());
    args.extend(mods.iter().map(|m| m.display().to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = common::skitter_within(&refs, std::time::Duration::from_secs(120), "replay hung");
    assert!(o.status.success(), "{}", common::text(&o));
    // Creature lines, without the brain's state (a replay runs no brain).
    let creatures = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.contains("\"event\""))
            .map(|l| match l.find(",\"brain\":") {
                Some(i) => {
                    let rest = &l[i + 1..];
                    let end = rest.find(",\"").map_or(l.len(), |j| i + 1 + j);
                    format!("{}{}", &l[..i], &l[end..])
                }
                None => l.to_string(),
            })
            .collect()
    };
    let replayed = std::fs::read_to_string(&trace).expect("trace");
    let (a, b) = (creatures(&served), creatures(&replayed));
    let srv = Trace::parse(&served);
    assert!(
        srv.recs.iter().any(|r| r.ragdoll),
        "the knock never happened"
    );
    assert_eq!(a.len(), b.len());
    let first = a.iter().zip(&b).position(|(x, y)| x != y);
    assert!(
        first.is_none(),
        "the replay parts at line {first:?}:\n{}\n{}",
        a[first.unwrap_or(0)],
        b[first.unwrap_or(0)]
    );
}

/// A foot's lift or plant: creature, leg, when (ticks: the server's, or the shown time a
/// viewer heard it at) and where.
type Foot = (u32, usize, f64, [f32; 3]);

/// A viewer hears what it shows: each foot the server planted or lifted is one sound event
/// on the viewer, at the shown time of the server's tick and where the server had it.
#[test]
fn a_viewer_hears_each_footfall_the_server_made_when_it_shows_it() {
    use skitter::sim::WorldEvent;
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&demo());
    assert!(host.take_errors().is_empty());
    let mut net = Loopback::new(NetServer::new(ServerOptions::default()));
    net.connect(NetViewer::new(), LinkSim::default(), 1);
    let foot = |e: &WorldEvent, at: f64| match *e {
        WorldEvent::Step {
            id, leg, position, ..
        } => Some((true, (id.0, leg, at, position.to_array()))),
        WorldEvent::Lift { id, leg, position } => {
            Some((false, (id.0, leg, at, position.to_array())))
        }
        _ => None,
    };
    let mut server: Vec<(bool, Foot)> = Vec::new();
    let mut viewer: Vec<(bool, Foot)> = Vec::new();
    let mut lands: Vec<(u32, f64)> = Vec::new();
    let ticks = 900u64;
    for tick in 0..ticks {
        net.server.apply_inputs(&mut host);
        let events = host.tick();
        net.server.after_tick(&host.world(), &events);
        // The tick's events happened at the world's time after it: tick + 1.
        server.extend(events.iter().filter_map(|e| foot(e, (tick + 1) as f64)));
        net.pump(DT, &host.world());
        let v = &mut net.links[0].viewer;
        let Some(shown) = v.shown_time() else {
            continue;
        };
        let shown = shown / DT;
        let sounds = v.take_sounds();
        viewer.extend(sounds.iter().filter_map(|e| foot(e, shown)));
        lands.extend(sounds.iter().filter_map(|e| match e {
            WorldEvent::Land { id, .. } => Some((id.0, shown)),
            _ => None,
        }));
    }
    let first = viewer.first().expect("the viewer heard nothing").1 .2;
    let last_shown = viewer.last().expect("heard").1 .2;
    // The server's feet from when the viewer was hearing until what it had shown by the end.
    let want: Vec<&(bool, Foot)> = server
        .iter()
        .filter(|(_, f)| f.2 > first + 30.0 && f.2 < last_shown - 30.0)
        .collect();
    let plants = want.iter().filter(|(p, _)| *p).count();
    assert!(plants > 400, "{plants} plants to hear");
    let (mut late, mut worst) = (0, 0.0f64);
    for (plant, (id, leg, tick, pos)) in &want {
        let what = if *plant { "plant" } else { "lift" };
        let (_, _, at, p) = viewer
            .iter()
            .filter(|(p, f)| p == plant && f.0 == *id && f.1 == *leg)
            .map(|(_, f)| f)
            .min_by(|a, b| (a.2 - tick).abs().total_cmp(&(b.2 - tick).abs()))
            .unwrap_or_else(|| panic!("creature {id} leg {leg}'s {what} at {tick}: never heard"));
        assert!(
            (at - tick).abs() < 4.0,
            "creature {id} leg {leg}'s {what} at tick {tick} heard at {at:.1} at the nearest"
        );
        let off = glam::Vec3::from_array(*p).distance(glam::Vec3::from_array(*pos));
        assert!(
            off < 0.01,
            "{what} {id}/{leg} at {tick}: {off} m from the server's\nserver {:?}\nviewer {:?}",
            server
                .iter()
                .filter(|(_, f)| f.0 == *id && f.1 == *leg && (f.2 - tick).abs() < 60.0)
                .collect::<Vec<_>>(),
            viewer
                .iter()
                .filter(|(_, f)| f.0 == *id && f.1 == *leg && (f.2 - tick).abs() < 60.0)
                .collect::<Vec<_>>()
        );
        // A shown frame can fall a tick either side of the server's.
        let dt = (at - tick).abs();
        worst = worst.max(dt);
        late += usize::from(dt > 1.0 + 1e-9);
    }
    assert!(
        late * 50 <= want.len(),
        "{late} of {} heard over a tick from their time (worst {worst:.1} ticks)",
        want.len()
    );
    // Nothing heard that the server did not do, but the feet of a jump's landing (which the
    // server sounds as the body's `Land`, as the viewer does too).
    let made = |(p, f): &(bool, Foot)| {
        server
            .iter()
            .any(|(q, g)| q == p && g.0 == f.0 && g.1 == f.1 && (g.2 - f.2).abs() < 4.0)
    };
    let extra: Vec<&(bool, Foot)> = viewer
        .iter()
        .filter(|(_, f)| f.2 > first + 36.0 && f.2 < last_shown - 36.0)
        .filter(|e| !made(e))
        .collect();
    for (p, f) in &extra {
        assert!(
            *p && lands
                .iter()
                .any(|(id, t)| *id == f.0 && (t - f.2).abs() < 6.0),
            "heard a {} the server did not make: {f:?}",
            if *p { "plant" } else { "lift" }
        );
    }
    assert!(!lands.is_empty(), "the demo's jumpers landed unheard");
    eprintln!(
        "{} feet heard, worst {worst:.2} ticks off; {} landings, {} feet on them",
        want.len(),
        lands.len(),
        extra.len()
    );
}
