//! A link conditioner: what a real network does to packets — latency, jitter, random and
//! bursty loss (Gilbert–Elliott), duplication, reordering, blackouts — seeded, on whatever
//! clock its caller keeps (a virtual one in tests), between a transport's send and receive.

use std::str::FromStr;

/// What the link does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkSim {
    /// One-way latency, seconds.
    pub latency: f64,
    /// Extra delay, uniform in ±jitter, seconds.
    pub jitter: f64,
    /// Share of packets lost at random (0..1).
    pub loss: f64,
    /// Bursty loss: the chance per packet of entering a burst, and of leaving it; inside
    /// a burst every packet is lost.
    pub burst: Option<(f64, f64)>,
    /// Share of packets delivered twice.
    pub duplicate: f64,
    /// Share of packets held back an extra latency (arriving after later ones).
    pub reorder: f64,
}

impl FromStr for LinkSim {
    type Err = String;

    /// `latency=100,jitter=20,loss=2,dup=1,reorder=1,burst=1/30`: milliseconds and percent
    /// (a burst: percent chance of starting one / of ending it, per packet).
    fn from_str(s: &str) -> Result<LinkSim, String> {
        let mut l = LinkSim::default();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("--net-sim: '{part}' is not key=value"))?;
            let num = |v: &str| -> Result<f64, String> {
                v.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| format!("--net-sim: {k} must be a number ≥ 0, got '{v}'"))
            };
            match k.trim() {
                "latency" => l.latency = num(v)? / 1000.0,
                "jitter" => l.jitter = num(v)? / 1000.0,
                "loss" => l.loss = (num(v)? / 100.0).min(1.0),
                "dup" | "duplicate" => l.duplicate = (num(v)? / 100.0).min(1.0),
                "reorder" => l.reorder = (num(v)? / 100.0).min(1.0),
                "burst" => {
                    let (a, b) = v.split_once('/').ok_or_else(|| {
                        "--net-sim: burst must be START/END (percent)".to_string()
                    })?;
                    l.burst = Some(((num(a)? / 100.0).min(1.0), (num(b)? / 100.0).min(1.0)));
                }
                other => {
                    return Err(format!(
                    "--net-sim: unknown key '{other}' (latency, jitter, loss, dup, reorder, burst)"
                ))
                }
            }
        }
        Ok(l)
    }
}

/// One direction of a conditioned link.
#[derive(Clone, Debug)]
pub struct Conditioner {
    sim: LinkSim,
    rng: u64,
    in_burst: bool,
    queue: Vec<(f64, u64, Vec<u8>)>,
    serial: u64,
    /// A blackout: nothing sent in [from, to) arrives.
    blackout: Option<(f64, f64)>,
    /// Packets sent.
    pub sent: u64,
    /// Packets lost.
    pub lost: u64,
    /// Bytes of the packets sent.
    pub bytes: u64,
    /// The largest packet sent, bytes.
    pub largest: usize,
}

impl Conditioner {
    /// A link doing `sim`, its randomness from `seed`.
    pub fn new(sim: LinkSim, seed: u64) -> Conditioner {
        Conditioner {
            sim,
            rng: seed ^ 0x9e37_79b9_7f4a_7c15,
            in_burst: false,
            queue: Vec::new(),
            serial: 0,
            blackout: None,
            sent: 0,
            lost: 0,
            bytes: 0,
            largest: 0,
        }
    }

    /// Nothing sent between `from` and `to` (s) arrives.
    pub fn blackout(&mut self, from: f64, to: f64) {
        self.blackout = Some((from, to));
    }

    fn uniform(&mut self) -> f64 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A packet sent at `now`.
    pub fn send(&mut self, now: f64, packet: Vec<u8>) {
        self.sent += 1;
        self.bytes += packet.len() as u64;
        self.largest = self.largest.max(packet.len());
        if let Some((enter, leave)) = self.sim.burst {
            let u = self.uniform();
            self.in_burst = if self.in_burst { u >= leave } else { u < enter };
        }
        let lost = self.uniform() < self.sim.loss
            || self.in_burst
            || self.blackout.is_some_and(|(a, b)| now >= a && now < b);
        if lost {
            self.lost += 1;
            return;
        }
        let copies = if self.uniform() < self.sim.duplicate {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut at = now + self.sim.latency + (self.uniform() * 2.0 - 1.0) * self.sim.jitter;
            if self.uniform() < self.sim.reorder {
                at += self.sim.latency.max(0.01);
            }
            self.serial += 1;
            self.queue.push((at.max(now), self.serial, packet.clone()));
        }
    }

    /// The packets arrived by `now`, in arrival order.
    pub fn receive(&mut self, now: f64) -> Vec<Vec<u8>> {
        self.queue
            .sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let n = self.queue.iter().take_while(|p| p.0 <= now).count();
        self.queue.drain(..n).map(|p| p.2).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_delays_loses_and_duplicates_as_asked() {
        let sim: LinkSim = "latency=100,jitter=20,loss=10,dup=5"
            .parse()
            .expect("parses");
        assert_eq!(sim.latency, 0.1);
        let mut c = Conditioner::new(sim, 7);
        let mut got = 0;
        for k in 0..2000 {
            let now = k as f64 / 60.0;
            c.send(now, vec![k as u8]);
            for _ in c.receive(now) {
                got += 1;
            }
        }
        got += c.receive(1e9).len();
        let lost = c.lost as f64 / 2000.0;
        assert!((0.07..0.13).contains(&lost), "loss {lost}");
        assert!(got > 2000 - c.lost as usize, "duplicates arrive: {got}");
        // On a link that loses nothing: nothing before latency − jitter, all by latency + jitter.
        let sure = LinkSim { loss: 0.0, ..sim };
        let mut c = Conditioner::new(sure, 7);
        c.send(0.0, vec![1]);
        assert!(
            c.receive(0.079).is_empty(),
            "nothing before latency − jitter"
        );
        assert!(!c.receive(0.121).is_empty(), "arrived by latency + jitter");
        assert!("loss=x".parse::<LinkSim>().is_err());
        assert!("speed=3"
            .parse::<LinkSim>()
            .unwrap_err()
            .contains("unknown key"));
    }
}
