//! Bit packing for snapshots and foot events: fixed-width fields and a variable-width code
//! for small numbers (a delta that did not change costs one bit).

/// Widths of the variable code's classes (after its zero bit and 3-bit class).
const CLASSES: [u32; 8] = [2, 4, 6, 9, 12, 16, 22, 32];

/// Writes bits, least significant first, into bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    bits: u32,
}

impl BitWriter {
    /// Appends the low `n` bits of `v` (n ≤ 32), a byte's worth at a time.
    pub(crate) fn put(&mut self, v: u32, n: u32) {
        let mut v = v as u64 & ((1u64 << n) - 1);
        let mut n = n;
        while n > 0 {
            let off = self.bits % 8;
            if off == 0 {
                self.bytes.push(0);
            }
            let take = (8 - off).min(n);
            let last = self.bytes.len() - 1;
            self.bytes[last] |= ((v & ((1 << take) - 1)) as u8) << off;
            v >>= take;
            n -= take;
            self.bits += take;
        }
    }

    /// One bit.
    pub(crate) fn flag(&mut self, b: bool) {
        self.put(u32::from(b), 1);
    }

    /// An unsigned number: one bit for 0, else the class and the number's bits.
    pub(crate) fn uvar(&mut self, v: u32) {
        if v == 0 {
            self.flag(false);
            return;
        }
        self.flag(true);
        let x = v - 1;
        let c = CLASSES
            .iter()
            .position(|w| *w == 32 || x < (1u32 << w))
            .unwrap_or(7);
        self.put(c as u32, 3);
        self.put(x, CLASSES[c]);
    }

    /// A small unsigned number, Exp-Golomb coded: 0 is one bit, 1–2 three, 3–6 five,
    /// 7–14 seven… (shorter than [`BitWriter::uvar`] for the small ones that dominate).
    pub(crate) fn gvar(&mut self, v: u32) {
        let x = v as u64 + 1;
        let n = 63 - x.leading_zeros();
        self.put(0, n);
        self.put(1, 1);
        let rest = x & ((1u64 << n) - 1);
        if n > 32 {
            self.put(rest as u32, 32);
            self.put((rest >> 32) as u32, n - 32);
        } else {
            self.put(rest as u32, n);
        }
    }

    /// A small signed number (zigzag, then [`BitWriter::gvar`]).
    pub(crate) fn sgvar(&mut self, v: i32) {
        self.gvar(((v << 1) ^ (v >> 31)) as u32);
    }

    /// Bits written so far.
    pub(crate) fn bit_len(&self) -> u32 {
        self.bits
    }

    /// Bytes so far (the last one padded with zeros).
    pub(crate) fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Cuts back to `bits` bits (undoing what did not fit).
    pub(crate) fn truncate(&mut self, bits: u32) {
        self.bits = bits;
        self.bytes.truncate(bits.div_ceil(8) as usize);
        if !bits.is_multiple_of(8) {
            let last = self.bytes.len() - 1;
            self.bytes[last] &= (1u8 << (bits % 8)) - 1;
        }
    }

    /// The bytes.
    pub(crate) fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// Reads what a [`BitWriter`] wrote; every read past the end is an error (a malformed or
/// cut packet), never a panic.
#[derive(Clone, Debug)]
pub(crate) struct BitReader<'a> {
    bytes: &'a [u8],
    bit: usize,
}

/// A packet ended early or held a value out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Malformed;

impl<'a> BitReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader { bytes, bit: 0 }
    }

    pub(crate) fn get(&mut self, n: u32) -> Result<u32, Malformed> {
        if self.bit + n as usize > self.bytes.len() * 8 {
            return Err(Malformed);
        }
        let mut v = 0u64;
        let mut got = 0u32;
        while got < n {
            let off = (self.bit % 8) as u32;
            let take = (8 - off).min(n - got);
            let byte = (self.bytes[self.bit / 8] >> off) as u64 & ((1 << take) - 1);
            v |= byte << got;
            got += take;
            self.bit += take as usize;
        }
        Ok(v as u32)
    }

    pub(crate) fn flag(&mut self) -> Result<bool, Malformed> {
        Ok(self.get(1)? != 0)
    }

    pub(crate) fn uvar(&mut self) -> Result<u32, Malformed> {
        if !self.flag()? {
            return Ok(0);
        }
        let c = self.get(3)? as usize;
        let x = self.get(CLASSES[c])?;
        x.checked_add(1).ok_or(Malformed)
    }

    pub(crate) fn gvar(&mut self) -> Result<u32, Malformed> {
        let mut n = 0u32;
        while !self.flag()? {
            n += 1;
            if n > 32 {
                return Err(Malformed);
            }
        }
        let rest = if n > 32 {
            return Err(Malformed);
        } else if n == 32 {
            self.get(32)? as u64
        } else {
            self.get(n)? as u64
        };
        let x = (1u64 << n) | rest;
        u32::try_from(x - 1).map_err(|_| Malformed)
    }

    pub(crate) fn sgvar(&mut self) -> Result<i32, Malformed> {
        let z = self.gvar()?;
        Ok(((z >> 1) as i32) ^ -((z & 1) as i32))
    }

    /// Whole bytes left unread (a reader at the padding of the last byte has none).
    pub(crate) fn bits_left(&self) -> usize {
        (self.bytes.len() * 8).saturating_sub(self.bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_small_ones_are_short() {
        let values = [
            0,
            1,
            -1,
            2,
            -3,
            100,
            -100,
            5000,
            -70000,
            i32::MAX,
            i32::MIN + 1,
        ];
        let mut w = BitWriter::default();
        for v in values {
            w.sgvar(v);
            w.uvar(v.unsigned_abs());
        }
        w.gvar(u32::MAX);
        w.uvar(u32::MAX);
        w.put(0b101, 3);
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes);
        for v in values {
            assert_eq!(r.sgvar(), Ok(v));
            assert_eq!(r.uvar(), Ok(v.unsigned_abs()));
        }
        assert_eq!(r.gvar(), Ok(u32::MAX));
        assert_eq!(r.uvar(), Ok(u32::MAX));
        assert_eq!(r.get(3), Ok(0b101));
        assert!(r.get(9).is_err(), "a read past the end is an error");
        let mut w = BitWriter::default();
        w.sgvar(0);
        assert_eq!(w.bit_len(), 1, "an unchanged field costs one bit");
        w.sgvar(-1);
        assert_eq!(w.bit_len(), 1 + 3, "±1 three");
        w.truncate(1);
        w.sgvar(5);
        let b = w.finish();
        let mut r = BitReader::new(&b);
        assert_eq!((r.sgvar(), r.sgvar()), (Ok(0), Ok(5)));
    }
}
