//! Snapshots: each creature's root, delta-coded against the state this viewer acknowledged
//! for it, chosen by a priority accumulator (nearness to the viewer's camera × snapshots
//! waited) under the viewer's byte budget, cut into messages of at most [`MAX_MESSAGE`]
//! bytes that each decode alone. A creature whose state is what the viewer already holds
//! (at rest) costs nothing.

use std::collections::{BTreeMap, HashMap, VecDeque};

use glam::Vec3;

use super::bits::{BitReader, BitWriter, Malformed};
use super::proto::MAX_MESSAGE;
use super::state::StateQ;

/// A base older than this many ticks is not used (the viewer keeps about this much).
pub(crate) const MAX_BASE_AGE: u64 = 150;
/// Bytes of a snapshot message's fixed header (tick, chunk, count, snapshot interval).
const HEADER: usize = 12;

/// What one message of a snapshot held, kept until the viewer acknowledges it.
#[derive(Clone, Debug)]
struct Sent {
    tick: u64,
    chunk: u8,
    items: Vec<(u32, StateQ)>,
}

/// A viewer's snapshot state on the server.
#[derive(Clone, Debug, Default)]
pub(crate) struct Outbox {
    /// Per creature, the newest state the viewer acknowledged and its tick.
    acked: HashMap<u32, (u64, StateQ)>,
    sent: VecDeque<Sent>,
    priority: HashMap<u32, f32>,
    /// Bytes of snapshots sent.
    pub(crate) bytes: u64,
    /// Creature records sent, and of them coded against a base.
    pub(crate) records: u64,
    pub(crate) deltas: u64,
    /// Moving creatures left out for the budget (their priority grows).
    pub(crate) deferred: u64,
    /// Ticks between snapshots (bases are whole intervals back).
    pub(crate) every: u32,
}

impl Outbox {
    /// A viewer's outbox for snapshots every `every` ticks.
    pub(crate) fn new(every: u32) -> Outbox {
        Outbox {
            every: every.max(1),
            ..Outbox::default()
        }
    }

    /// The viewer got message `chunk` of the snapshot of `tick`.
    pub(crate) fn ack(&mut self, tick: u64, chunk: u8) -> bool {
        let Some(i) = self
            .sent
            .iter()
            .position(|s| s.tick == tick && s.chunk == chunk)
        else {
            return false;
        };
        let s = self.sent.remove(i).unwrap_or_else(|| unreachable!());
        for (id, st) in s.items {
            match self.acked.get_mut(&id) {
                Some(e) if tick < e.0 => {}
                Some(e) => *e = (tick, st),
                None => {
                    self.acked.insert(id, (tick, st));
                }
            }
        }
        true
    }

    /// Forgets a creature gone.
    pub(crate) fn forget(&mut self, id: u32) {
        self.acked.remove(&id);
        self.priority.remove(&id);
    }

    /// The snapshot of `tick` for this viewer: `roots` (id order) under `budget` bytes,
    /// nearest `camera` first. Returns the messages.
    pub(crate) fn snapshot(
        &mut self,
        tick: u64,
        roots: &BTreeMap<u32, StateQ>,
        camera: Option<Vec3>,
        budget: usize,
    ) -> Vec<Vec<u8>> {
        while self
            .sent
            .front()
            .is_some_and(|s| s.tick + MAX_BASE_AGE < tick)
        {
            self.sent.pop_front();
        }
        // Who needs sending, by priority (ties by id: the same order every run).
        let mut want: Vec<(f32, u32)> = Vec::new();
        for (&id, st) in roots {
            let base = self.acked.get(&id);
            if base.is_some_and(|(_, b)| b == st) {
                self.priority.remove(&id);
                continue;
            }
            let near = camera.map_or(1.0, |c| 1.0 / (1.0 + st.position().distance(c) / 20.0));
            let p = self.priority.entry(id).or_insert(0.0);
            *p += near;
            want.push((*p, id));
        }
        want.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // Estimate by bits as written; stop at the budget.
        let mut chosen: Vec<u32> = Vec::new();
        let mut bits = 0usize;
        for &(_, id) in &want {
            let st = &roots[&id];
            let mut w = BitWriter::default();
            self.write_one(&mut w, tick, id, 0, st);
            bits += w.bit_len() as usize;
            if bits / 8 > budget && !chosen.is_empty() {
                self.deferred += 1;
                continue;
            }
            chosen.push(id);
        }
        chosen.sort_unstable();
        let mut out = Vec::new();
        let mut i = 0;
        while i < chosen.len() {
            let chunk = out.len() as u8;
            let mut body = BitWriter::default();
            let mut items = Vec::new();
            let mut last = 0u32;
            while i < chosen.len() {
                let id = chosen[i];
                let st = roots[&id].clone();
                let mark = body.bit_len();
                self.write_one(&mut body, tick, id, last, &st);
                if HEADER + body.byte_len() > MAX_MESSAGE && !items.is_empty() {
                    body.truncate(mark);
                    break;
                }
                last = id;
                items.push((id, st));
                i += 1;
            }
            for (id, _) in &items {
                self.priority.insert(*id, 0.0);
            }
            let mut msg = Vec::with_capacity(HEADER + body.byte_len());
            msg.extend_from_slice(&tick.to_le_bytes());
            msg.push(chunk);
            msg.extend_from_slice(&(items.len() as u16).to_le_bytes());
            msg.push(self.every.min(255) as u8);
            msg.extend(body.finish());
            self.bytes += msg.len() as u64;
            self.records += items.len() as u64;
            out.push(msg);
            self.sent.push_back(Sent { tick, chunk, items });
            if chunk == u8::MAX {
                break;
            }
        }
        if out.is_empty() {
            // Nothing moved: a bare header still marks the tick (the viewer's clock).
            let mut msg = tick.to_le_bytes().to_vec();
            msg.extend_from_slice(&[0, 0, 0, self.every.min(255) as u8]);
            self.bytes += msg.len() as u64;
            out.push(msg);
        }
        out
    }

    /// One record: the id's gap from the last, its base (how many snapshot intervals back,
    /// or none), its state against it.
    fn write_one(&mut self, w: &mut BitWriter, tick: u64, id: u32, last: u32, st: &StateQ) {
        w.gvar(id - last);
        let every = u64::from(self.every.max(1));
        match self
            .acked
            .get(&id)
            .filter(|(t, _)| *t < tick && tick - *t <= MAX_BASE_AGE && (tick - *t) % every == 0)
        {
            Some((t, base)) => {
                let back = (tick - t) as u32;
                w.flag(true);
                w.gvar(back / every as u32 - 1);
                st.write(w, Some((base, back)));
                self.deltas += 1;
            }
            None => {
                w.flag(false);
                st.write(w, None);
            }
        }
    }
}

/// A decoded snapshot message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Decoded {
    pub(crate) tick: u64,
    pub(crate) chunk: u8,
    pub(crate) items: Vec<(u32, StateQ)>,
    /// Records whose base the viewer no longer holds (left out).
    pub(crate) missing: u32,
}

/// Decodes a snapshot message against the viewer's history (`base(id, tick)`).
pub(crate) fn decode(
    bytes: &[u8],
    base: impl Fn(u32, u64) -> Option<StateQ>,
) -> Result<Decoded, Malformed> {
    if bytes.len() < HEADER {
        return Err(Malformed);
    }
    let tick = u64::from_le_bytes(bytes[0..8].try_into().map_err(|_| Malformed)?);
    let chunk = bytes[8];
    let count = u16::from_le_bytes([bytes[9], bytes[10]]) as usize;
    let every = u32::from(bytes[11].max(1));
    let mut r = BitReader::new(&bytes[HEADER..]);
    let mut items = Vec::with_capacity(count.min(1024));
    let mut id = 0u32;
    let mut missing = 0;
    for _ in 0..count {
        id = id.checked_add(r.gvar()?).ok_or(Malformed)?;
        if !r.flag()? {
            items.push((id, StateQ::read(&mut r, None)?));
            continue;
        }
        let back = r
            .gvar()?
            .checked_add(1)
            .and_then(|b| b.checked_mul(every))
            .ok_or(Malformed)?;
        let t = tick.checked_sub(back as u64).ok_or(Malformed)?;
        match base(id, t) {
            Some(b) => items.push((id, StateQ::read(&mut r, Some((&b, back)))?)),
            None => {
                // The rest of the message cannot be read past a record without its base.
                missing += 1;
                break;
            }
        }
    }
    if missing == 0 && r.bits_left() >= 8 {
        return Err(Malformed);
    }
    Ok(Decoded {
        tick,
        chunk,
        items,
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::state::RootQ;

    fn root(x: i32, vx: i32) -> StateQ {
        StateQ::Root(RootQ {
            pos: [x, 200, 0],
            vel: [vx, 0, 0],
            yaw: 100,
            ..Default::default()
        })
    }

    #[test]
    fn rest_costs_nothing_and_moving_creatures_are_deltas_after_an_ack() {
        let mut out = Outbox {
            every: 3,
            ..Outbox::default()
        };
        let mut roots = BTreeMap::new();
        for id in 0..300u32 {
            roots.insert(id, root(id as i32 * 100, if id % 2 == 0 { 256 } else { 0 }));
        }
        let first = out.snapshot(3, &roots, None, 100_000);
        assert!(first.len() > 1 && first.iter().all(|m| m.len() <= MAX_MESSAGE));
        let history: HashMap<(u32, u64), StateQ> = first
            .iter()
            .flat_map(|m| decode(m, |_, _| None).expect("absolute").items)
            .map(|(id, st)| ((id, 3), st))
            .collect();
        assert_eq!(history.len(), 300);
        for c in 0..first.len() {
            out.ack(3, c as u8);
        }
        // Three ticks on: the movers moved, the others rest.
        for (id, st) in roots.iter_mut() {
            if let (0, StateQ::Root(r)) = (id % 2, st) {
                r.pos[0] += 26;
            }
        }
        let next = out.snapshot(6, &roots, None, 100_000);
        let got: Vec<(u32, StateQ)> = next
            .iter()
            .flat_map(|m| {
                decode(m, |id, t| history.get(&(id, t)).cloned())
                    .expect("decodes")
                    .items
            })
            .collect();
        assert_eq!(got.len(), 150, "only the movers");
        assert!(got.iter().all(|(id, st)| roots[id] == *st));
        let bytes: usize = next.iter().map(|m| m.len()).sum();
        assert!(
            bytes <= 150 * 6 + HEADER * next.len(),
            "{bytes} B for 150 walkers"
        );
        // A budget sends the highest priority and the rest catch up after.
        let small = out.snapshot(9, &roots, Some(Vec3::ZERO), 200);
        assert!(small.iter().map(|m| m.len()).sum::<usize>() < 260);
        assert!(out.deferred > 0);
        assert!(decode(&[1, 2, 3], |_, _| None).is_err());
    }
}
