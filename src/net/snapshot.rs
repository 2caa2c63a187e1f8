//! Snapshots: each creature's root, delta-coded against the state this viewer acknowledged
//! for it, chosen by a priority accumulator (nearness to the viewer's camera × snapshots
//! waited) under the viewer's byte budget, cut into messages of at most [`MAX_MESSAGE`]
//! bytes that each decode alone. A creature whose state is what the viewer already holds
//! (at rest) costs nothing.

use std::collections::VecDeque;

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

/// What a viewer's outbox knows of one creature.
#[derive(Clone, Debug, Default)]
struct Slot {
    /// The newest state the viewer acknowledged, and its tick.
    acked: Option<(u64, StateQ)>,
    /// Grows by the creature's nearness each snapshot it waits; 0 once sent.
    priority: f32,
    /// Bits its last record took (an estimate for the budget).
    bits: u32,
}

/// Bits a record is taken to need before one was written.
const FIRST_GUESS_BITS: u32 = 160;

/// A viewer's snapshot state on the server: a slot per creature, in id order (walked
/// beside the creatures' states in one pass).
#[derive(Clone, Debug, Default)]
pub(crate) struct Outbox {
    slots: Vec<(u32, Slot)>,
    sent: VecDeque<Sent>,
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

    fn slot(&mut self, id: u32) -> Option<&mut Slot> {
        let i = self.slots.binary_search_by_key(&id, |s| s.0).ok()?;
        Some(&mut self.slots[i].1)
    }

    /// The viewer got message `chunk` of the snapshot of `tick`.
    pub(crate) fn ack(&mut self, tick: u64, chunk: u8) -> bool {
        // `sent` is in (tick, message) order: pushed so, and only ever shortened.
        let Some(s) = self
            .sent
            .binary_search_by(|s| (s.tick, s.chunk).cmp(&(tick, chunk)))
            .ok()
            .and_then(|i| self.sent.remove(i))
        else {
            return false;
        };
        for (id, st) in s.items {
            if let Some(slot) = self.slot(id) {
                if slot.acked.as_ref().is_none_or(|(t, _)| *t <= tick) {
                    slot.acked = Some((tick, st));
                }
            }
        }
        true
    }

    /// Forgets a creature gone.
    pub(crate) fn forget(&mut self, id: u32) {
        if let Ok(i) = self.slots.binary_search_by_key(&id, |s| s.0) {
            self.slots.remove(i);
        }
    }

    /// Walks the creatures' states beside the slots (both in id order): slots for new
    /// creatures made, each one's priority grown, and those whose state the viewer does
    /// not hold returned as (index into `states`, priority, estimated bits).
    fn wanted(&mut self, states: &[(u32, StateQ)], camera: Option<Vec3>) -> Vec<(usize, f32, u32)> {
        let old = std::mem::take(&mut self.slots);
        let mut old = old.into_iter().peekable();
        let mut want = Vec::with_capacity(states.len());
        self.slots.reserve(states.len());
        for (i, (id, st)) in states.iter().enumerate() {
            while old.peek().is_some_and(|(o, _)| o < id) {
                old.next(); // a creature gone (forget may not have run yet)
            }
            let mut slot = match old.peek() {
                Some((o, _)) if o == id => old.next().map(|s| s.1).unwrap_or_default(),
                _ => Slot::default(),
            };
            if slot.acked.as_ref().is_some_and(|(_, b)| b == st) {
                slot.priority = 0.0;
            } else {
                let near = camera.map_or(1.0, |c| 1.0 / (1.0 + st.position().distance(c) / 20.0));
                slot.priority += near;
                // Its last record's size and half again (a base further back costs more).
                let bits = if slot.bits == 0 {
                    FIRST_GUESS_BITS
                } else {
                    slot.bits + slot.bits / 2 + 8
                };
                want.push((i, slot.priority, bits));
            }
            self.slots.push((*id, slot));
        }
        want
    }

    /// The snapshot of `tick` for this viewer: `states` (id order) under `budget` bytes,
    /// nearest `camera` first. Returns the messages.
    pub(crate) fn snapshot(
        &mut self,
        tick: u64,
        states: &[(u32, StateQ)],
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
        let mut want = self.wanted(states, camera);
        let estimate: usize = want.iter().map(|w| w.2 as usize).sum::<usize>() / 8;
        if estimate > budget {
            // Over the budget: the highest priorities (ties by id: the same order every
            // run), then back in id order.
            want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let before = want.len();
            // Always the first in line, whatever it costs; then while the budget lasts.
            let mut bits = want[0].2 as usize;
            let fit = 1 + want[1..]
                .iter()
                .take_while(|w| {
                    bits += w.2 as usize;
                    bits / 8 <= budget
                })
                .count();
            want.truncate(fit);
            self.deferred += (before - want.len()) as u64;
            want.sort_unstable_by_key(|w| w.0);
        }
        let mut out = Vec::new();
        let mut next = 0;
        while next < want.len() {
            let (msg, used) = self.message(tick, out.len() as u8, states, &want[next..]);
            out.push(msg);
            next += used;
            if out.len() == 256 {
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

    /// One message of the snapshot: as many of `want` (id order) as fit. Returns it and how
    /// many went in.
    fn message(
        &mut self,
        tick: u64,
        chunk: u8,
        states: &[(u32, StateQ)],
        want: &[(usize, f32, u32)],
    ) -> (Vec<u8>, usize) {
        let mut body = BitWriter::default();
        let mut items = Vec::new();
        let mut last = 0u32;
        for &(i, _, _) in want {
            let (id, st) = &states[i];
            let mark = body.bit_len();
            self.write_one(&mut body, tick, *id, last, st);
            if HEADER + body.byte_len() > MAX_MESSAGE && !items.is_empty() {
                body.truncate(mark);
                break;
            }
            if let Some(slot) = self.slot(*id) {
                slot.priority = 0.0;
                slot.bits = body.bit_len() - mark;
            }
            last = *id;
            items.push((*id, st.clone()));
        }
        let used = items.len();
        let mut msg = Vec::with_capacity(HEADER + body.byte_len());
        msg.extend_from_slice(&tick.to_le_bytes());
        msg.push(chunk);
        msg.extend_from_slice(&(used as u16).to_le_bytes());
        msg.push(self.every.min(255) as u8);
        msg.extend(body.finish());
        self.bytes += msg.len() as u64;
        self.records += used as u64;
        self.sent.push_back(Sent { tick, chunk, items });
        (msg, used)
    }

    /// One record: the id's gap from the last, its base (how many snapshot intervals back,
    /// or none), its state against it.
    fn write_one(&mut self, w: &mut BitWriter, tick: u64, id: u32, last: u32, st: &StateQ) {
        w.gvar(id - last);
        let every = u64::from(self.every.max(1));
        let base = self
            .slot(id)
            .and_then(|s| s.acked.as_ref())
            .filter(|(t, _)| {
                *t < tick && tick - *t <= MAX_BASE_AGE && (tick - *t).is_multiple_of(every)
            });
        match base {
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
        let mut roots: Vec<(u32, StateQ)> = (0..300u32)
            .map(|id| (id, root(id as i32 * 100, if id % 2 == 0 { 64 } else { 0 })))
            .collect();
        let first = out.snapshot(3, &roots, None, 100_000);
        assert!(first.len() > 1 && first.iter().all(|m| m.len() <= MAX_MESSAGE));
        let history: std::collections::HashMap<(u32, u64), StateQ> = first
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
            if let (0, StateQ::Root(r)) = (*id % 2, st) {
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
        assert!(got.iter().all(|(id, st)| roots[*id as usize].1 == *st));
        let bytes: usize = next.iter().map(|m| m.len()).sum();
        assert!(
            bytes <= 150 * 6 + HEADER * next.len(),
            "{bytes} B for 150 walkers"
        );
        // A budget sends the highest priority and the rest catch up after.
        let records = out.records;
        let small = out.snapshot(9, &roots, Some(Vec3::ZERO), 200);
        let bytes: usize = small.iter().map(|m| m.len()).sum();
        assert!(bytes < 200 + 2 * HEADER, "{bytes} B for a 200 B budget");
        assert!(out.records - records < 150 && out.deferred > 0);
        // ...and the nearest the camera first: the movers closest to the origin.
        let sent: Vec<u32> = small
            .iter()
            .flat_map(|m| {
                decode(m, |id, t| history.get(&(id, t)).cloned())
                    .expect("decodes")
                    .items
            })
            .map(|(id, _)| id)
            .collect();
        let nearest: Vec<u32> = (0..300).step_by(2).take(sent.len()).collect();
        assert!(!sent.is_empty());
        assert_eq!(sent, nearest);
        assert!(decode(&[1, 2, 3], |_, _| None).is_err());
    }
}
