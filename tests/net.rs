//! Multiplayer: a server and viewers in one process, their packets carried in memory
//! through seeded link conditioners on a virtual clock (and one real-UDP test between two
//! processes). What a viewer draws is measured against the server's own trace.

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
        for cmd in net.server.take_inputs() {
            host.world_mut().push(cmd);
        }
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
    server_accel: f64,
    viewer_accel: f64,
}

fn fidelity(server: &Trace, viewer: &Trace, after: f64) -> Fidelity {
    let s = by_creature(server);
    let v = by_creature(viewer);
    let mut f = Fidelity::default();
    let mut lean_sq = 0.0;
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
    f
}

/// The body's largest acceleration over a trace of 60 Hz records (m/s²), from second
/// differences of position over 3 frames (the same on both sides).
fn max_accel(recs: &[&Rec]) -> f64 {
    let h = 3 * 1;
    let mut worst = 0.0f64;
    for i in h..recs.len().saturating_sub(h) {
        let (a, b, c) = (
            recs[i - h].pos.unwrap(),
            recs[i].pos.unwrap(),
            recs[i + h].pos.unwrap(),
        );
        let dt = h as f64 * DT;
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
    assert!(f.samples > 1000, "{f:?}");
    assert!(f.worst_body < 0.05, "a body 5 cm off: {f:?}");
    assert!(
        f.worst_plant < 0.01,
        "a planted foot 1 cm off the server's plants: {f:?}"
    );
    assert!(f.worst_slide < 1e-4, "a planted foot slid: {f:?}");
    assert!(f.lean_rms < 1.0, "lean off by more than 1° RMS: {f:?}");
    assert!(
        f.viewer_accel <= f.server_accel * 1.25 + 0.5,
        "the viewer's bodies pop: {f:?}"
    );
    assert!(fig.delay < 0.25, "{fig:?}");
}
