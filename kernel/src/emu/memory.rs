//! The global memory of an emulated launch: named regions (the kernel
//! arguments, the dispatch packet, each buffer) at fixed addresses, each a
//! byte array with a known bit per byte. An access outside every region is
//! an error, as it would be a fault on the GPU.

/// One region.
#[derive(Debug, Clone)]
pub struct Region {
    /// Its name (`kernarg`, `dispatch`, a buffer argument's name).
    pub name: String,
    /// First byte address.
    pub base: u64,
    /// Contents.
    pub bytes: Vec<u8>,
    /// Known bits of `bytes`, one per byte (bit `i % 64` of word `i / 64`):
    /// a byte written from a symbolic (floating-point) value is unknown.
    pub known: Vec<u64>,
}

impl Region {
    /// The dword at byte `off` (little-endian), and whether all its bytes are
    /// known; bytes past the end read 0 (known).
    pub fn dword(&self, off: usize) -> (u32, bool) {
        let mut v = 0u32;
        let mut known = true;
        for i in 0..4 {
            if let Some(&b) = self.bytes.get(off + i) {
                v |= u32::from(b) << (8 * i);
                known &= self.known[(off + i) / 64] >> ((off + i) % 64) & 1 != 0;
            }
        }
        (v, known)
    }
}

/// The memory: regions sorted by address, none overlapping.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    regions: Vec<Region>,
    /// The region of the last access (accesses run in long runs on one).
    last: std::cell::Cell<usize>,
}

impl Memory {
    /// Adds a region of `bytes` (all known) at `base`.
    pub fn map(&mut self, name: &str, base: u64, bytes: Vec<u8>) {
        let n = bytes.len();
        self.regions.push(Region {
            name: name.to_string(),
            base,
            bytes,
            known: vec![!0; n.div_ceil(64)],
        });
        self.regions.sort_by_key(|r| r.base);
    }

    /// Adds a region of `bytes` at `base` padded with unknown bytes to a
    /// multiple of `align` bytes.
    pub fn map_padded(&mut self, name: &str, base: u64, mut bytes: Vec<u8>, align: usize) {
        let n = bytes.len();
        bytes.resize(n.next_multiple_of(align), 0);
        self.map(name, base, bytes);
        let r = self
            .regions
            .iter_mut()
            .find(|r| r.base == base)
            .expect("just mapped");
        for i in n..r.bytes.len() {
            r.known[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Adds a region of `len` unknown bytes at `base`.
    pub fn map_unknown(&mut self, name: &str, base: u64, len: usize) {
        self.map(name, base, vec![0; len]);
        let r = self
            .regions
            .iter_mut()
            .find(|r| r.base == base)
            .expect("just mapped");
        r.known.fill(0);
    }

    /// The regions, by address.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The region named `name`.
    pub fn region(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }

    /// The region and offset of the `n` bytes at `addr`, if one region holds
    /// them all.
    fn find(&self, addr: u64, n: usize) -> Option<(usize, usize)> {
        let fits = |r: &Region| {
            addr >= r.base && addr.saturating_add(n as u64) <= r.base + r.bytes.len() as u64
        };
        let last = self.last.get();
        if let Some(r) = self.regions.get(last) {
            if fits(r) {
                return Some((last, (addr - r.base) as usize));
            }
        }
        let i = self
            .regions
            .partition_point(|r| r.base <= addr)
            .checked_sub(1)?;
        let r = &self.regions[i];
        fits(r).then(|| {
            self.last.set(i);
            (i, (addr - r.base) as usize)
        })
    }

    /// Why `n` bytes at `addr` cannot be accessed.
    fn fault(&self, addr: u64, n: usize) -> String {
        match self.regions.iter().find(|r| {
            addr < r.base + r.bytes.len() as u64 + 4096
                && addr + n as u64 > r.base.saturating_sub(4096)
        }) {
            Some(r) => format!(
                "{n} bytes at {addr:#x} are outside `{}` ({:#x}..{:#x})",
                r.name,
                r.base,
                r.base + r.bytes.len() as u64
            ),
            None => format!("{n} bytes at {addr:#x} are in no buffer of the launch"),
        }
    }

    /// Reads `n` (1..=8) bytes at `addr`, little-endian, and whether all are
    /// known.
    pub fn read(&self, addr: u64, n: usize) -> Result<(u64, bool), String> {
        let (r, off) = self.find(addr, n).ok_or_else(|| self.fault(addr, n))?;
        let r = &self.regions[r];
        let mut v = 0u64;
        let mut known = true;
        for i in 0..n {
            v |= u64::from(r.bytes[off + i]) << (8 * i);
            known &= r.known[(off + i) / 64] >> ((off + i) % 64) & 1 != 0;
        }
        Ok((v, known))
    }

    /// Writes the low `n` (1..=8) bytes of `v` at `addr`.
    pub fn write(&mut self, addr: u64, n: usize, v: u64, known: bool) -> Result<(), String> {
        let (r, off) = self.find(addr, n).ok_or_else(|| self.fault(addr, n))?;
        let r = &mut self.regions[r];
        for i in 0..n {
            r.bytes[off + i] = (v >> (8 * i)) as u8;
            let (w, b) = ((off + i) / 64, (off + i) % 64);
            if known {
                r.known[w] |= 1 << b;
            } else {
                r.known[w] &= !(1 << b);
            }
        }
        Ok(())
    }
}
