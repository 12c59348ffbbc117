//! The ELF64 little-endian records an x86-64 relocatable object is made of,
//! as split_object reads and writes them (the System V gABI's names).

pub const ELF_HEADER_SIZE: usize = 64;
pub const SECTION_HEADER_SIZE: usize = 64;
pub const SYMBOL_SIZE: usize = 24;
pub const RELOCATION_SIZE: usize = 24;

pub const ET_REL: u16 = 1;
pub const EM_X86_64: u16 = 62;

pub const SHT_PROGBITS: u32 = 1;
pub const SHT_SYMTAB: u32 = 2;
pub const SHT_STRTAB: u32 = 3;
pub const SHT_RELA: u32 = 4;
pub const SHT_NOBITS: u32 = 8;
pub const SHT_REL: u32 = 9;
pub const SHT_GROUP: u32 = 17;
pub const SHT_SYMTAB_SHNDX: u32 = 18;
pub const SHT_X86_64_UNWIND: u32 = 0x7000_0001;

pub const SHF_WRITE: u64 = 0x1;
pub const SHF_ALLOC: u64 = 0x2;
pub const SHF_EXECINSTR: u64 = 0x4;
pub const SHF_MERGE: u64 = 0x10;
pub const SHF_STRINGS: u64 = 0x20;
pub const SHF_INFO_LINK: u64 = 0x40;
pub const SHF_LINK_ORDER: u64 = 0x80;
pub const SHF_GROUP: u64 = 0x200;
pub const SHF_TLS: u64 = 0x400;

pub const SHN_UNDEF: u16 = 0;
pub const SHN_LORESERVE: u16 = 0xff00;
pub const SHN_XINDEX: u16 = 0xffff;

pub const STB_LOCAL: u8 = 0;
pub const STB_GLOBAL: u8 = 1;
pub const STB_WEAK: u8 = 2;
pub const STT_NOTYPE: u8 = 0;
pub const STT_SECTION: u8 = 3;
pub const STT_FILE: u8 = 4;
pub const STT_TLS: u8 = 6;
pub const STT_GNU_IFUNC: u8 = 10;
pub const STV_HIDDEN: u8 = 2;
pub const STV_PROTECTED: u8 = 3;

/// A byte range of the object.
#[derive(Clone, Copy, Default)]
pub struct Table {
    pub offset: usize,
    pub size: usize,
}

#[derive(Clone, Copy)]
pub struct Section {
    pub name: u32,
    pub kind: u32,
    pub flags: u64,
    pub offset: usize,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entry_size: u64,
}

impl Section {
    /// The section header at the start of `header` (64 bytes).
    pub fn read(header: &[u8]) -> Option<Self> {
        Some(Self {
            name: u32_at(header, 0)?,
            kind: u32_at(header, 4)?,
            flags: u64_at(header, 8)?,
            offset: usize::try_from(u64_at(header, 24)?).ok()?,
            size: u64_at(header, 32)?,
            link: u32_at(header, 40)?,
            info: u32_at(header, 44)?,
            align: u64_at(header, 48)?,
            entry_size: u64_at(header, 56)?,
        })
    }
}

#[derive(Clone, Copy, Default)]
pub struct Symbol {
    pub name: u32,
    pub info: u8,
    pub other: u8,
    pub section: u16,
    pub value: u64,
    pub size: u64,
}

impl Symbol {
    /// The symbol table entry at the start of `entry` (24 bytes).
    pub fn read(entry: &[u8]) -> Option<Self> {
        Some(Self {
            name: u32_at(entry, 0)?,
            info: *entry.get(4)?,
            other: *entry.get(5)?,
            section: u16_at(entry, 6)?,
            value: u64_at(entry, 8)?,
            size: u64_at(entry, 16)?,
        })
    }

    pub fn binding(&self) -> u8 {
        self.info >> 4
    }

    pub fn kind(&self) -> u8 {
        self.info & 0xf
    }

    /// The entry as the symbol table holds it.
    pub fn to_bytes(self) -> [u8; SYMBOL_SIZE] {
        let mut entry = [0; SYMBOL_SIZE];
        entry[..4].copy_from_slice(&self.name.to_le_bytes());
        entry[4] = self.info;
        entry[5] = self.other;
        entry[6..8].copy_from_slice(&self.section.to_le_bytes());
        entry[8..16].copy_from_slice(&self.value.to_le_bytes());
        entry[16..].copy_from_slice(&self.size.to_le_bytes());
        entry
    }
}

#[derive(Clone, Copy)]
pub struct Relocation {
    pub offset: u64,
    pub symbol: usize,
    pub kind: u32,
    pub addend: i64,
}

impl Relocation {
    /// The `Elf64_Rela` at the start of `entry` (24 bytes).
    pub fn read(entry: &[u8]) -> Option<Self> {
        let info = u64_at(entry, 8)?;
        Some(Self {
            offset: u64_at(entry, 0)?,
            symbol: usize::try_from(info >> 32).ok()?,
            kind: info as u32,
            addend: i64::from_le_bytes(read(entry, 16)?),
        })
    }

    /// The entry as a relocation section holds it, against `symbol`.
    pub fn to_bytes(self, symbol: u64) -> [u8; RELOCATION_SIZE] {
        let mut entry = [0; RELOCATION_SIZE];
        entry[..8].copy_from_slice(&self.offset.to_le_bytes());
        entry[8..16].copy_from_slice(&((symbol << 32) | u64::from(self.kind)).to_le_bytes());
        entry[16..].copy_from_slice(&self.addend.to_le_bytes());
        entry
    }
}

/// How many bytes an x86-64 relocation of type `kind` patches (the psABI's
/// table); 4 for the types this does not list, the most common width.
pub fn fixup_width(kind: u32) -> u64 {
    match kind {
        // R_X86_64_NONE.
        0 => 0,
        // R_X86_64_64, DTPMOD64, DTPOFF64, TPOFF64, PC64, GOTOFF64, GOT64,
        // GOTPCREL64, GOTPC64, GOTPLT64, PLTOFF64, SIZE64.
        1 | 16..=18 | 24 | 25 | 27..=31 | 33 => 8,
        // R_X86_64_16, PC16.
        12 | 13 => 2,
        // R_X86_64_8, PC8.
        14 | 15 => 1,
        _ => 4,
    }
}

/// The `N` bytes at `at` of a fixed-size entry (a section header, symbol or
/// relocation taken from a table by `as_chunks`), whose fields are at
/// constant offsets inside it, so that the compiler drops the check; a field
/// that did not fit would read as zeros.
#[inline(always)]
fn field<const N: usize, const E: usize>(entry: &[u8; E], at: usize) -> [u8; N] {
    entry
        .get(at..)
        .and_then(<[u8]>::first_chunk::<N>)
        .copied()
        .unwrap_or([0; N])
}

#[inline(always)]
pub fn u16_in<const E: usize>(entry: &[u8; E], at: usize) -> u16 {
    u16::from_le_bytes(field(entry, at))
}

#[inline(always)]
pub fn u32_in<const E: usize>(entry: &[u8; E], at: usize) -> u32 {
    u32::from_le_bytes(field(entry, at))
}

#[inline(always)]
pub fn u64_in<const E: usize>(entry: &[u8; E], at: usize) -> u64 {
    u64::from_le_bytes(field(entry, at))
}

pub fn read<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

pub fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    read(bytes, at).map(u16::from_le_bytes)
}

pub fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    read(bytes, at).map(u32::from_le_bytes)
}

pub fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    read(bytes, at).map(u64::from_le_bytes)
}

/// The NUL-terminated string at `offset` of the string table `table`.
pub fn string_at(bytes: &[u8], table: Table, offset: u32) -> Option<&[u8]> {
    let start = table.offset.checked_add(usize::try_from(offset).ok()?)?;
    let within = bytes.get(start..table.offset.checked_add(table.size)?)?;
    let end = within.iter().position(|&byte| byte == 0)?;
    Some(&within[..end])
}
