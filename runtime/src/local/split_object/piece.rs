//! Writing a piece: an ELF relocatable object of some sections of the
//! object, with their symbols, their relocations (against the piece's own
//! symbols, or by name against what was linked before or is defined
//! elsewhere) and the unwind entries of their functions.

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    SECTION_ALIAS_PREFIX,
    elf::{
        ELF_HEADER_SIZE, EM_X86_64, ET_REL, RELOCATION_SIZE, Relocation, SECTION_HEADER_SIZE,
        SHF_ALLOC, SHF_INFO_LINK, SHN_LORESERVE, SHN_UNDEF, SHT_NOBITS, SHT_RELA, SHT_STRTAB,
        SHT_SYMTAB, SHT_X86_64_UNWIND, STB_GLOBAL, STB_LOCAL, STB_WEAK, STT_NOTYPE, STT_SECTION,
        STV_HIDDEN, SYMBOL_SIZE, Symbol, u32_at,
    },
    layout::{Fde, Layout, PooledConstant},
};

/// One piece being written: an ELF relocatable object of some of the
/// object's sections, their symbols and relocations, and the unwind entries
/// of their functions.
pub struct Piece<'a> {
    bytes: &'a [u8],
    layout: &'a Layout,
    linked: &'a [bool],
    /// What of the object the piece holds.
    contents: &'a Contents,
    new_section: FxHashMap<usize, u16>,
    locals: Vec<Symbol>,
    globals: Vec<Symbol>,
    /// The object's symbol index to the piece's (locals) or to its index
    /// among the globals.
    new_symbol: FxHashMap<usize, SymbolRef>,
    /// The object's section index to the piece's reference to the alias of
    /// that section, linked before.
    section_aliases: FxHashMap<usize, SymbolRef>,
    names: StringTable,
    /// The piece's copies of the constants it uses of each pool (see
    /// [`Layout::pooled_constant`]), sections of the piece after its own.
    pools: Vec<Pool>,
}

/// What of the object a piece holds.
pub struct Contents {
    /// The object's index of each section of the piece (its index 1 on),
    /// ascending.
    pub sections: Vec<usize>,
    /// The global symbols each of them defines.
    pub globals: Vec<Vec<u32>>,
    /// The unwind entries of their functions, in their order.
    pub fdes: Vec<Fde>,
}

/// The constants a piece copies of one pool of the object.
struct Pool {
    /// The pool's section in the object.
    section: usize,
    /// The copied entries, in the order the piece first uses them.
    entries: Vec<u8>,
}

#[derive(Clone, Copy)]
enum SymbolRef {
    Local(u32),
    Global(u32),
}

#[derive(Default)]
struct StringTable {
    bytes: Vec<u8>,
}

impl StringTable {
    fn add(&mut self, name: &[u8]) -> u32 {
        if self.bytes.is_empty() {
            self.bytes.push(0);
        }
        if name.is_empty() {
            return 0;
        }
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(name);
        self.bytes.push(0);
        at
    }
}

/// A section of the piece: its header fields and its bytes, the object's
/// own (borrowed: a constant pool shared by many functions can be most of a
/// piece) or written for the piece.
struct OutSection<'a> {
    name: Vec<u8>,
    kind: u32,
    flags: u64,
    data: Cow<'a, [u8]>,
    /// For NOBITS: the size without bytes.
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entry_size: u64,
}

impl<'a> Piece<'a> {
    pub fn write(
        bytes: &'a [u8],
        layout: &'a Layout,
        linked: &'a [bool],
        contents: &'a Contents,
    ) -> Result<Vec<u8>, String> {
        let mut piece = Piece {
            bytes,
            layout,
            linked,
            contents,
            new_section: FxHashMap::default(),
            locals: vec![Symbol::default()],
            globals: Vec::new(),
            new_symbol: FxHashMap::default(),
            section_aliases: FxHashMap::default(),
            names: StringTable::default(),
            pools: Vec::new(),
        };
        piece.names.add(b"");
        piece.define_symbols()?;
        piece.finish()
    }

    /// The piece's sections' own symbols: a section symbol each, their
    /// global symbols, and a hidden global alias of each section, by which
    /// later pieces reach its local symbols. Local symbols are reached
    /// through their section's symbol (see `target`).
    fn define_symbols(&mut self) -> Result<(), String> {
        let malformed = |what: &str| format!("malformed object: {what}");
        for (position, &section) in self.contents.sections.iter().enumerate() {
            let index = u16::try_from(position + 1).map_err(|_| malformed("too many sections"))?;
            self.new_section.insert(section, index);
            self.locals.push(Symbol {
                name: 0,
                info: STT_SECTION,
                other: 0,
                section: index,
                value: 0,
                size: 0,
            });
        }
        for (&section, globals) in self.contents.sections.iter().zip(&self.contents.globals) {
            let index = self.new_section[&section];
            for &defined in globals {
                let defined = defined as usize;
                let symbol = self.layout.symbol(self.bytes, defined)?;
                let name = self
                    .layout
                    .symbol_name(self.bytes, &symbol)
                    .ok_or_else(|| malformed("a symbol's name is outside its string table"))?;
                let name = self.names.add(name);
                self.new_symbol
                    .insert(defined, SymbolRef::Global(self.globals.len() as u32));
                self.globals.push(Symbol {
                    name,
                    section: index,
                    ..symbol
                });
            }
            // One alias per section, not per local symbol: a constant pool
            // or a `.bss` of 10,000 locals would otherwise define 10,000
            // names in the JITDylib, which costs more than the piece. Every
            // section has one: which sections define locals is known only
            // from a pass over all the local symbols.
            let alias = self
                .names
                .add(format!("{SECTION_ALIAS_PREFIX}{section}").as_bytes());
            self.globals.push(Symbol {
                name: alias,
                info: (STB_GLOBAL << 4) | STT_NOTYPE,
                other: STV_HIDDEN,
                section: index,
                value: 0,
                size: 0,
            });
        }
        Ok(())
    }

    /// `relocation` as the piece writes it, and the piece's symbol it is
    /// against: one of its own, or a reference by name to one linked before
    /// or defined elsewhere. A local symbol is reached through its section
    /// (the piece's section symbol, or the alias of a section linked
    /// before), its offset added to the addend; a piece carries a local
    /// symbol itself only for a relocation that needs the symbol, which
    /// cannot reach one linked before. Every symbol reached is one a piece
    /// can carry (`SplitObject::closure` checked).
    fn target(&mut self, relocation: Relocation) -> Result<(Relocation, SymbolRef), String> {
        let index = relocation.symbol;
        if let Some(&found) = self.new_symbol.get(&index) {
            return Ok((relocation, found));
        }
        let symbol = self.layout.symbol(self.bytes, index)?;
        let name = self
            .layout
            .symbol_name(self.bytes, &symbol)
            .ok_or_else(|| {
                "malformed object: a symbol's name is outside its string table".to_owned()
            })?;
        let defined_in = self.layout.defining_section(&symbol);
        if let Some(section) = defined_in.filter(|_| symbol.binding() == STB_LOCAL) {
            let own = self.new_section.get(&section).copied();
            let pooled = own
                .is_none()
                .then(|| self.layout.pooled_constant(self.bytes, &symbol))
                .flatten();
            if let Some(constant) = pooled {
                let found = self.copy_constant(name, &symbol, constant)?;
                self.new_symbol.insert(index, found);
                return Ok((relocation, found));
            }
            let found = match own {
                Some(_) if symbol.kind() == STT_SECTION => {
                    return Ok((relocation, self.section_symbol(section)));
                }
                Some(own) if refers_to_symbol_itself(relocation.kind) => {
                    let name = self.names.add(name);
                    let found = SymbolRef::Local(self.locals.len() as u32);
                    self.locals.push(Symbol {
                        name,
                        section: own,
                        ..symbol
                    });
                    self.new_symbol.insert(index, found);
                    return Ok((relocation, found));
                }
                Some(_) => self.section_symbol(section),
                None if !self.linked[section] => {
                    return Err(format!(
                        "malformed object: symbol {index} is in a section the piece does not hold"
                    ));
                }
                None if refers_to_symbol_itself(relocation.kind) => {
                    return Err(format!(
                        "a relocation of type {} reaches local symbol '{}' of a piece linked \
                         before (through the GOT or by its size), which a piece cannot refer to: \
                         compile without function sections to link the object whole",
                        relocation.kind,
                        String::from_utf8_lossy(name)
                    ));
                }
                None => self.section_alias(section),
            };
            let relocation = Relocation {
                addend: relocation.addend.wrapping_add(symbol.value as i64),
                ..relocation
            };
            return Ok((relocation, found));
        }
        let (name, binding) = match defined_in {
            Some(section) if self.linked[section] => (name.to_vec(), symbol.binding()),
            Some(_) => {
                return Err(format!(
                    "malformed object: symbol {index} is in a section the piece does not hold"
                ));
            }
            None if symbol.binding() == STB_WEAK => (name.to_vec(), STB_WEAK),
            None => (name.to_vec(), STB_GLOBAL),
        };
        let found = self.undefined(&name, binding);
        self.new_symbol.insert(index, found);
        Ok((relocation, found))
    }

    /// A local symbol of the piece labelling its copy of `constant`, which
    /// `symbol` (called `name`) labels in the object: constants of a pool
    /// are copied, not shared (a linker may merge equal ones, so no program
    /// relies on their addresses), so that the first piece of many that use
    /// one pool does not link all of it.
    fn copy_constant(
        &mut self,
        name: &[u8],
        symbol: &Symbol,
        constant: PooledConstant,
    ) -> Result<SymbolRef, String> {
        let position = match self
            .pools
            .iter()
            .position(|pool| pool.section == constant.section)
        {
            Some(position) => position,
            None => {
                self.pools.push(Pool {
                    section: constant.section,
                    entries: Vec::new(),
                });
                self.pools.len() - 1
            }
        };
        let section = u16::try_from(self.contents.sections.len() + 1 + position)
            .map_err(|_| "malformed object: too many sections".to_owned())?;
        let entries = &mut self.pools[position].entries;
        // Alignments are at most MAX_ALIGNMENT (checked by `Layout::read`).
        entries.resize(entries.len().next_multiple_of(constant.align as usize), 0);
        let at = entries.len() as u64;
        entries.extend_from_slice(&self.bytes[constant.bytes]);
        let name = self.names.add(name);
        let found = SymbolRef::Local(self.locals.len() as u32);
        self.locals.push(Symbol {
            name,
            section,
            value: at + constant.label_offset,
            ..*symbol
        });
        Ok(found)
    }

    /// The section symbol of the piece's section that is the object's
    /// section `section`.
    fn section_symbol(&self, section: usize) -> SymbolRef {
        // Section symbols come first, in the order of the piece's sections.
        SymbolRef::Local(u32::from(self.new_section[&section]))
    }

    /// The piece's reference to the alias of `section`, linked before.
    fn section_alias(&mut self, section: usize) -> SymbolRef {
        if let Some(&found) = self.section_aliases.get(&section) {
            return found;
        }
        let alias = format!("{SECTION_ALIAS_PREFIX}{section}").into_bytes();
        let found = self.undefined(&alias, STB_GLOBAL);
        self.section_aliases.insert(section, found);
        found
    }

    /// A new undefined symbol of the piece called `name`.
    fn undefined(&mut self, name: &[u8], binding: u8) -> SymbolRef {
        let name = self.names.add(name);
        let found = SymbolRef::Global(self.globals.len() as u32);
        self.globals.push(Symbol {
            name,
            info: binding << 4,
            other: 0,
            section: SHN_UNDEF,
            value: 0,
            size: 0,
        });
        found
    }

    fn final_index(&self, symbol: SymbolRef) -> u64 {
        match symbol {
            SymbolRef::Local(index) => u64::from(index),
            SymbolRef::Global(index) => (self.locals.len() + index as usize) as u64,
        }
    }

    fn finish(mut self) -> Result<Vec<u8>, String> {
        let mut out_sections = Vec::new();
        // The relocations are written with symbol references resolved after
        // every symbol exists: (section position, relocation, symbol).
        let mut pending_relocations: Vec<(usize, Relocation, SymbolRef)> = Vec::new();
        for &section in &self.contents.sections {
            let header = self
                .layout
                .section(self.bytes, section)
                .ok_or_else(|| format!("malformed object: section {section}"))?;
            let name = self
                .layout
                .section_name(self.bytes, &header)
                .unwrap_or_default()
                .to_vec();
            let data = if header.kind == SHT_NOBITS {
                Cow::Borrowed(&[][..])
            } else {
                let table = self.layout.contents(self.bytes, &header).ok_or_else(|| {
                    format!("malformed object: section {section} is outside the file")
                })?;
                Cow::Borrowed(&self.bytes[table.offset..table.offset + table.size])
            };
            out_sections.push(OutSection {
                name,
                kind: header.kind,
                flags: header.flags,
                data,
                size: header.size,
                link: 0,
                info: 0,
                align: header.align,
                entry_size: header.entry_size,
            });
        }
        for (position, &section) in self.contents.sections.iter().enumerate() {
            for relocation in self.layout.relocations(self.bytes, section)? {
                let (relocation, symbol) = self.target(relocation)?;
                pending_relocations.push((position, relocation, symbol));
            }
        }
        let mut eh_relocations = Vec::new();
        let mut eh_frame = Vec::new();
        let layout = self.layout;
        let contents = self.contents;
        if let (Some(frame), false) = (layout.eh_frame(), contents.fdes.is_empty()) {
            let malformed = || "malformed object: an entry of .eh_frame".to_owned();
            let frame_contents = layout
                .section(self.bytes, frame)
                .and_then(|header| layout.contents(self.bytes, &header))
                .ok_or_else(malformed)?;
            let frame_bytes =
                &self.bytes[frame_contents.offset..frame_contents.offset + frame_contents.size];
            let entry = |offset: usize, length: usize| {
                offset
                    .checked_add(length)
                    .and_then(|end| frame_bytes.get(offset..end))
                    .ok_or_else(malformed)
            };
            let mut copied_cies: FxHashMap<usize, usize> = FxHashMap::default();
            for fde in &contents.fdes {
                let (offset, length, cie) =
                    (fde.offset as usize, fde.length as usize, fde.cie as usize);
                let cie_at = match copied_cies.get(&cie) {
                    Some(&at) => at,
                    None => {
                        let length = u32_at(frame_bytes, cie).unwrap_or(0) as usize + 4;
                        let at = eh_frame.len();
                        eh_frame.extend_from_slice(entry(cie, length)?);
                        copied_cies.insert(cie, at);
                        at
                    }
                };
                let at = eh_frame.len();
                eh_frame.extend_from_slice(entry(offset, length)?);
                let cie_pointer = (at + 4 - cie_at) as u32;
                eh_frame
                    .get_mut(at + 4..at + 8)
                    .ok_or_else(malformed)?
                    .copy_from_slice(&cie_pointer.to_le_bytes());
                let pc_begin = layout.relocation(self.bytes, frame, fde.relocation as usize)?;
                let (pc_begin, symbol) = self.target(pc_begin)?;
                eh_relocations.push((
                    Relocation {
                        offset: (at + 8) as u64,
                        ..pc_begin
                    },
                    symbol,
                ));
            }
        }
        // The copies of pools' constants follow the piece's own sections,
        // whose indexes their symbols took.
        for pool in std::mem::take(&mut self.pools) {
            let header = self
                .layout
                .section(self.bytes, pool.section)
                .ok_or_else(|| format!("malformed object: section {}", pool.section))?;
            let size = pool.entries.len() as u64;
            out_sections.push(OutSection {
                name: self
                    .layout
                    .section_name(self.bytes, &header)
                    .unwrap_or_default()
                    .to_vec(),
                kind: header.kind,
                flags: header.flags,
                data: Cow::Owned(pool.entries),
                size,
                link: 0,
                info: 0,
                align: header.align,
                entry_size: header.entry_size,
            });
        }
        // Section indexes of the piece: its sections and copies of pools,
        // then a relocation section for each of its sections that has
        // relocations, .eh_frame and its relocations, the symbol table and
        // the string tables.
        let symbol_table_index = {
            let relocated: FxHashSet<usize> = pending_relocations
                .iter()
                .map(|(position, ..)| *position)
                .collect();
            out_sections.len() + 1 + relocated.len() + if eh_frame.is_empty() { 0 } else { 2 }
        } as u32;
        let mut by_position: Vec<Vec<u8>> = vec![Vec::new(); self.contents.sections.len()];
        for (position, relocation, symbol) in &pending_relocations {
            by_position[*position]
                .extend_from_slice(&relocation.to_bytes(self.final_index(*symbol)));
        }
        for (position, table) in by_position.into_iter().enumerate() {
            if table.is_empty() {
                continue;
            }
            let name = [b".rela".as_slice(), &out_sections[position].name].concat();
            out_sections.push(relocation_section(
                name,
                table,
                symbol_table_index,
                position as u32 + 1,
            ));
        }
        if !eh_frame.is_empty() {
            let size = eh_frame.len() as u64;
            out_sections.push(OutSection {
                name: b".eh_frame".to_vec(),
                kind: SHT_X86_64_UNWIND,
                flags: SHF_ALLOC,
                data: Cow::Owned(eh_frame),
                size,
                link: 0,
                info: 0,
                align: 8,
                entry_size: 0,
            });
            let frame_index = out_sections.len() as u32;
            let mut table = Vec::new();
            for (relocation, symbol) in &eh_relocations {
                table.extend_from_slice(&relocation.to_bytes(self.final_index(*symbol)));
            }
            out_sections.push(relocation_section(
                b".rela.eh_frame".to_vec(),
                table,
                symbol_table_index,
                frame_index,
            ));
        }
        let first_global = self.locals.len() as u32;
        let mut symbols =
            Vec::with_capacity((self.locals.len() + self.globals.len()) * SYMBOL_SIZE);
        for symbol in self.locals.iter().chain(&self.globals) {
            symbols.extend_from_slice(&symbol.to_bytes());
        }
        let symbol_size = symbols.len() as u64;
        out_sections.push(OutSection {
            name: b".symtab".to_vec(),
            kind: SHT_SYMTAB,
            flags: 0,
            data: Cow::Owned(symbols),
            size: symbol_size,
            link: symbol_table_index + 1,
            info: first_global,
            align: 8,
            entry_size: SYMBOL_SIZE as u64,
        });
        let names = std::mem::take(&mut self.names.bytes);
        let names_size = names.len() as u64;
        out_sections.push(OutSection {
            name: b".strtab".to_vec(),
            kind: SHT_STRTAB,
            flags: 0,
            data: Cow::Owned(names),
            size: names_size,
            link: 0,
            info: 0,
            align: 1,
            entry_size: 0,
        });
        write_object(out_sections)
    }
}

fn relocation_section(
    name: Vec<u8>,
    table: Vec<u8>,
    symbols: u32,
    target: u32,
) -> OutSection<'static> {
    let size = table.len() as u64;
    OutSection {
        name,
        kind: SHT_RELA,
        flags: SHF_INFO_LINK,
        data: Cow::Owned(table),
        size,
        link: symbols,
        info: target,
        align: 8,
        entry_size: RELOCATION_SIZE as u64,
    }
}

/// An ELF64 x86-64 relocatable object of `sections` (section 0 and the
/// section name table are added here).
fn write_object(mut sections: Vec<OutSection>) -> Result<Vec<u8>, String> {
    let mut section_names = StringTable::default();
    section_names.add(b"");
    let name_offsets: Vec<u32> = sections
        .iter()
        .map(|section| section_names.add(&section.name))
        .collect();
    let names_name = section_names.add(b".shstrtab");
    let names_data = std::mem::take(&mut section_names.bytes);
    let names_size = names_data.len() as u64;
    sections.push(OutSection {
        name: Vec::new(),
        kind: SHT_STRTAB,
        flags: 0,
        data: Cow::Owned(names_data),
        size: names_size,
        link: 0,
        info: 0,
        align: 1,
        entry_size: 0,
    });
    // Room for all of it at once: growing the object as it is written would
    // copy its largest sections again at each doubling.
    let capacity = sections.iter().fold(
        ELF_HEADER_SIZE + 8 + (sections.len() + 1) * SECTION_HEADER_SIZE,
        |total, section| total + section.data.len() + section.align.max(1) as usize,
    );
    let mut out = Vec::with_capacity(capacity);
    out.resize(ELF_HEADER_SIZE, 0);
    let mut offsets = Vec::with_capacity(sections.len());
    for section in &sections {
        let align = section.align.max(1) as usize;
        out.resize(out.len().next_multiple_of(align), 0);
        offsets.push(out.len() as u64);
        out.extend_from_slice(&section.data);
    }
    out.resize(out.len().next_multiple_of(8), 0);
    let section_table = out.len() as u64;
    out.extend_from_slice(&[0; SECTION_HEADER_SIZE]);
    for (index, section) in sections.iter().enumerate() {
        let name = name_offsets.get(index).copied().unwrap_or(names_name);
        let mut header = [0u8; SECTION_HEADER_SIZE];
        header[..4].copy_from_slice(&name.to_le_bytes());
        header[4..8].copy_from_slice(&section.kind.to_le_bytes());
        header[8..16].copy_from_slice(&section.flags.to_le_bytes());
        header[24..32].copy_from_slice(&offsets[index].to_le_bytes());
        header[32..40].copy_from_slice(&section.size.to_le_bytes());
        header[40..44].copy_from_slice(&section.link.to_le_bytes());
        header[44..48].copy_from_slice(&section.info.to_le_bytes());
        header[48..56].copy_from_slice(&section.align.to_le_bytes());
        header[56..64].copy_from_slice(&section.entry_size.to_le_bytes());
        out.extend_from_slice(&header);
    }
    let count = u16::try_from(sections.len() + 1)
        .ok()
        .filter(|&count| count < SHN_LORESERVE)
        .ok_or_else(|| {
            format!(
                "a piece of {} sections is more than ELF numbers",
                sections.len()
            )
        })?;
    out[..4].copy_from_slice(b"\x7fELF");
    out[4] = 2; // 64-bit
    out[5] = 1; // little-endian
    out[6] = 1; // ELF version
    out[16..18].copy_from_slice(&ET_REL.to_le_bytes());
    out[18..20].copy_from_slice(&EM_X86_64.to_le_bytes());
    out[20..24].copy_from_slice(&1u32.to_le_bytes());
    out[40..48].copy_from_slice(&section_table.to_le_bytes());
    out[52..54].copy_from_slice(&(ELF_HEADER_SIZE as u16).to_le_bytes());
    out[58..60].copy_from_slice(&(SECTION_HEADER_SIZE as u16).to_le_bytes());
    out[60..62].copy_from_slice(&count.to_le_bytes());
    out[62..64].copy_from_slice(&(count - 1).to_le_bytes());
    Ok(out)
}

/// Whether an x86-64 relocation of type `kind` depends on its symbol itself,
/// not only on its address: a GOT entry of it (R_X86_64_GOT32, GOTPCREL,
/// GOT64, GOTPCREL64, GOTPLT64, GOTPCRELX, REX_GOTPCRELX, CODE_4_GOTPCRELX)
/// or its size (SIZE32, SIZE64). Such a relocation cannot be moved to the
/// symbol's section with its offset in the addend.
fn refers_to_symbol_itself(kind: u32) -> bool {
    matches!(kind, 3 | 9 | 27 | 28 | 30 | 32 | 33 | 41..=43)
}
