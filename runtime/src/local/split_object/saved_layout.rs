//! An object's layout in a file of its own: what `Layout::read` finds in the
//! object and the tables of its global symbols, so that a later
//! `send_binary` of the same file reads this instead of the object's tables
//! (which, with function sections, are most of the object). The file is
//! written and found by layout_cache.rs; it names the object file it
//! describes by its identity and a hash of its first and last bytes, and is
//! used only for that file.
//!
//! The format, little-endian, each table 8-byte aligned:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `EXLAYOUT` |
//! | 8 | [`FORMAT`] |
//! | 56 | the object file's device, inode, size, modification and change times (seconds, nanoseconds) |
//! | 8 | [`fingerprint`] of the object |
//! | 104 | [`Header`]'s 13 numbers |
//! | 16 | the name table's slots, the count of globals |
//! | 2 per section | the section's relocation section, 0 for none |
//! | 1 per section | 1 when the section is allocated |
//! | 8 per slot | the globals by name: (hash, symbol) pairs, `u32::MAX` for an empty slot |
//! | 4 per section, and 8 | where each section's globals start in the next table |
//! | 4 per global | the defined globals, by section |
//! | 4 per section, and 4 | where each section's unwind entries start among `.eh_frame`'s relocations (when they ascend) |
//!
//! Nothing here trusts the file: its counts are checked against its size
//! here, and what a layout takes from it against the object
//! (layout/saved.rs).

use crate::local::object_bytes::{FileIdentity, ObjectBytes};

const MAGIC: &[u8; 8] = b"EXLAYOUT";
/// Changes with anything a saved layout holds, or how it is hashed.
const FORMAT: u64 = 2;
const IDENTITY_AT: usize = 16;
const FINGERPRINT_AT: usize = IDENTITY_AT + 56;
const HEADER_AT: usize = FINGERPRINT_AT + 8;
/// [`Header`]'s fields, then the name table's slots and the count of
/// globals.
const HEADER_FIELDS: usize = 15;
const TABLES_AT: usize = HEADER_AT + HEADER_FIELDS * 8;
/// A slot of the name table that holds no global.
const EMPTY: u32 = u32::MAX;
/// How many bytes of each end of the object [`fingerprint`] hashes.
const FINGERPRINTED: usize = 4096;

/// What `Layout::read` found, as numbers: the offsets and sizes of the
/// object's tables.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Header {
    pub section_table: u64,
    pub section_count: u64,
    pub section_names: (u64, u64),
    pub symbols: (u64, u64),
    pub symbol_section: u64,
    pub symbol_count: u64,
    pub first_global: u64,
    pub symbol_names: (u64, u64),
    /// `.eh_frame`'s section, 0 for none.
    pub eh_frame: u64,
    /// Whether the unwind entries' sections ascend.
    pub fdes_ascending: bool,
}

impl Header {
    fn fields(&self) -> [u64; HEADER_FIELDS - 2] {
        [
            self.section_table,
            self.section_count,
            self.section_names.0,
            self.section_names.1,
            self.symbols.0,
            self.symbols.1,
            self.symbol_section,
            self.symbol_count,
            self.first_global,
            self.symbol_names.0,
            self.symbol_names.1,
            self.eh_frame,
            u64::from(self.fdes_ascending),
        ]
    }

    fn from_fields(fields: &[u64]) -> Option<Self> {
        Some(Self {
            section_table: fields[0],
            section_count: fields[1],
            section_names: (fields[2], fields[3]),
            symbols: (fields[4], fields[5]),
            symbol_section: fields[6],
            symbol_count: fields[7],
            first_global: fields[8],
            symbol_names: (fields[9], fields[10]),
            eh_frame: fields[11],
            fdes_ascending: match fields[12] {
                0 => false,
                1 => true,
                _ => return None,
            },
        })
    }
}

/// What a saved layout holds of an object's sections and globals.
#[derive(Default)]
pub struct Tables<'a> {
    pub relocations_of: &'a [u16],
    pub allocated: &'a [bool],
    /// Each defined global's name and symbol index.
    pub globals: Vec<(&'a [u8], u32)>,
    /// The defined globals by section: section `s`'s are
    /// `by_section[start[s + 1]..start[s + 2]]`.
    pub start: &'a [u32],
    pub by_section: &'a [u32],
    /// When the unwind entries' sections ascend, section `s`'s entries are
    /// those of `.eh_frame`'s relocations `fde_start[s]..fde_start[s + 1]`;
    /// otherwise empty.
    pub fde_start: Vec<u32>,
}

/// A saved layout, read and checked to be whole.
pub struct SavedLayout {
    bytes: ObjectBytes,
    header: Header,
    slots: usize,
    globals: usize,
}

impl SavedLayout {
    /// The file's contents for the object of `identity` and `fingerprint`.
    pub fn write(
        identity: &FileIdentity,
        fingerprint: u64,
        header: &Header,
        tables: &Tables,
    ) -> Vec<u8> {
        let sections = tables.relocations_of.len();
        let slots = (tables.globals.len() * 2).next_power_of_two().max(8);
        let mut names = vec![(0, EMPTY); slots];
        for &(name, symbol) in &tables.globals {
            let hash = name_hash(name);
            let mut slot = hash as usize & (slots - 1);
            while names[slot].1 != EMPTY {
                slot = (slot + 1) & (slots - 1);
            }
            names[slot] = (hash, symbol);
        }
        let mut out =
            Vec::with_capacity(TABLES_AT + sections * 8 + slots * 8 + tables.by_section.len() * 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        for field in identity.fields() {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&fingerprint.to_le_bytes());
        let counts = [slots as u64, tables.by_section.len() as u64];
        for field in header.fields().into_iter().chain(counts) {
            out.extend_from_slice(&field.to_le_bytes());
        }
        for &relocations in tables.relocations_of {
            out.extend_from_slice(&relocations.to_le_bytes());
        }
        align(&mut out);
        out.extend(
            tables
                .allocated
                .iter()
                .map(|&allocated| u8::from(allocated)),
        );
        align(&mut out);
        for (hash, symbol) in names {
            out.extend_from_slice(&hash.to_le_bytes());
            out.extend_from_slice(&symbol.to_le_bytes());
        }
        let no_fdes = vec![0; sections + 1];
        let fde_start = if tables.fde_start.is_empty() {
            &no_fdes
        } else {
            &tables.fde_start
        };
        for &value in tables
            .start
            .iter()
            .chain(tables.by_section)
            .chain(fde_start)
        {
            out.extend_from_slice(&value.to_le_bytes());
        }
        align(&mut out);
        out
    }

    /// The saved layout in `bytes` if it is whole and of this format, for
    /// the object of `identity` and `fingerprint`.
    pub fn read(bytes: ObjectBytes, identity: &FileIdentity, fingerprint: u64) -> Option<Self> {
        let data = bytes.as_slice();
        if data.get(..8)? != MAGIC || field(data, 8)? != FORMAT {
            return None;
        }
        let saved_identity: Vec<u64> = (0..7)
            .map(|at| field(data, IDENTITY_AT + at * 8))
            .collect::<Option<_>>()?;
        if saved_identity != identity.fields() || field(data, FINGERPRINT_AT)? != fingerprint {
            return None;
        }
        let fields: Vec<u64> = (0..HEADER_FIELDS)
            .map(|at| field(data, HEADER_AT + at * 8))
            .collect::<Option<_>>()?;
        let header = Header::from_fields(&fields)?;
        let sections = usize::try_from(header.section_count).ok()?;
        let slots = usize::try_from(fields[HEADER_FIELDS - 2]).ok()?;
        let globals = usize::try_from(fields[HEADER_FIELDS - 1]).ok()?;
        if !slots.is_power_of_two() || sections > usize::from(u16::MAX) {
            return None;
        }
        let saved = Self {
            bytes,
            header,
            slots,
            globals,
        };
        (saved.end()? == saved.bytes.as_slice().len()).then_some(saved)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Each section's relocation section, 0 for none.
    pub fn relocations_of(&self) -> Vec<u16> {
        let (entries, _) = self.table(TABLES_AT, self.sections() * 2).as_chunks::<2>();
        entries
            .iter()
            .map(|&entry| u16::from_le_bytes(entry))
            .collect()
    }

    /// Whether each section is allocated.
    pub fn allocated(&self) -> Vec<bool> {
        self.table(self.allocated_at(), self.sections())
            .iter()
            .map(|&byte| byte != 0)
            .collect()
    }

    /// The symbols of the globals whose name may be `name` (its hash
    /// matches), in the order a lookup tries them.
    pub fn globals_named(&self, name: &[u8]) -> impl Iterator<Item = u32> + '_ {
        let hash = name_hash(name);
        let (slots, _) = self.table(self.names_at(), self.slots * 8).as_chunks::<8>();
        let first = hash as usize & (self.slots - 1);
        slots[first..]
            .iter()
            .chain(&slots[..first])
            .map(|slot| (u32_in(slot, 0), u32_in(slot, 4)))
            .take_while(|&(_, symbol)| symbol != EMPTY)
            .filter(move |&(slot_hash, _)| slot_hash == hash)
            .map(|(_, symbol)| symbol)
    }

    /// The globals `section` defines, in the symbol table's order; `None`
    /// when the saved table does not say (a damaged file).
    pub fn globals_of(&self, section: usize) -> Option<Vec<u32>> {
        let starts = self.table(self.starts_at(), (self.sections() + 2) * 4);
        let start = u32_in(starts.get((section + 1) * 4..)?, 0) as usize;
        let end = u32_in(starts.get((section + 2) * 4..)?, 0) as usize;
        let globals = self.table(self.globals_at(), self.globals * 4);
        let (entries, _) = globals
            .get(start * 4..end.checked_mul(4)?)?
            .as_chunks::<4>();
        Some(
            entries
                .iter()
                .map(|&entry| u32::from_le_bytes(entry))
                .collect(),
        )
    }

    /// Which of `.eh_frame`'s relocations are those of the unwind entries
    /// of `section`, when their sections ascend.
    pub fn fdes_of(&self, section: usize) -> Option<std::ops::Range<usize>> {
        if !self.header.fdes_ascending || section >= self.sections() {
            return None;
        }
        let starts = self.table(self.fde_starts_at(), (self.sections() + 1) * 4);
        let start = u32_in(starts, section * 4) as usize;
        let end = u32_in(starts, (section + 1) * 4) as usize;
        (start <= end).then_some(start..end)
    }

    fn sections(&self) -> usize {
        self.header.section_count as usize
    }

    fn allocated_at(&self) -> usize {
        aligned(TABLES_AT + self.sections() * 2)
    }

    fn names_at(&self) -> usize {
        aligned(self.allocated_at() + self.sections())
    }

    fn starts_at(&self) -> usize {
        self.names_at() + self.slots * 8
    }

    fn globals_at(&self) -> usize {
        self.starts_at() + (self.sections() + 2) * 4
    }

    fn fde_starts_at(&self) -> usize {
        self.globals_at() + self.globals * 4
    }

    /// Where the file ends, by its counts; `None` when they overflow.
    fn end(&self) -> Option<usize> {
        let names = self.slots.checked_mul(8)?;
        let globals = self.globals.checked_mul(4)?;
        let tables = names
            .checked_add((self.sections() + 2) * 4)?
            .checked_add(globals)?;
        Some(aligned(
            self.names_at().checked_add(tables)? + (self.sections() + 1) * 4,
        ))
    }

    /// `length` bytes at `at`: within the file, which `read` checked.
    fn table(&self, at: usize, length: usize) -> &[u8] {
        &self.bytes.as_slice()[at..at + length]
    }
}

/// A hash of the object's first and last bytes (its ELF header; the
/// section header table, which compilers write last), which a saved layout
/// must match as well as the file's identity.
pub fn fingerprint(object: &[u8]) -> u64 {
    let head = &object[..object.len().min(FINGERPRINTED)];
    let tail = &object[object.len().saturating_sub(FINGERPRINTED)..];
    let hash = fnv1a(FNV_OFFSET, &(object.len() as u64).to_le_bytes());
    fnv1a(fnv1a(hash, head), tail)
}

/// The hash of a global's name in the name table: the low half of its
/// FNV-1a, fixed by [`FORMAT`].
fn name_hash(name: &[u8]) -> u32 {
    fnv1a(FNV_OFFSET, name) as u32
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn field(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

fn u32_in(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

fn aligned(at: usize) -> usize {
    at.next_multiple_of(8)
}

fn align(out: &mut Vec<u8>) {
    out.resize(aligned(out.len()), 0);
}
