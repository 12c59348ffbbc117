//! Whether an object's `.eh_frame` can be split: each entry copied into the
//! piece of the function it describes, with nothing else to carry.

use super::elf::{RELOCATION_SIZE, fixup_width, u32_in, u64_in};

/// `Some` when `.eh_frame` (`frame`, whose relocations are the `Elf64_Rela`
/// entries `relocations`) holds only what a piece can carry:
/// `None` when a CIE has a relocation (a personality) or an FDE has more
/// than the one of its initial location (an LSDA), since a piece would have
/// to carry what they point to; also for what LLVM does not write (64-bit
/// lengths, relocations out of order or outside every entry).
///
/// `described` gives the section the symbol of an FDE's relocation is
/// defined in (its sort key; `None` when there is no such symbol), and the
/// result says whether those sections ascend in `.eh_frame`'s order, as
/// compilers write them: a section's entries are then found by binary
/// search, with no pass over all of them at the first piece.
pub(super) fn check_eh_frame(
    frame: &[u8],
    relocations: &[u8],
    described: impl Fn(u32) -> Option<u32>,
) -> Option<DescribedOrder> {
    // Offsets of entries are kept in 32 bits (see `Fde`).
    u32::try_from(frame.len()).ok()?;
    // Fixed-size entries, whose fields are read without checks.
    let (relocations, _) = relocations.as_chunks::<RELOCATION_SIZE>();
    check_framing(frame, relocations)?;
    Some(order_described(relocations, described))
}

/// `Some` when each relocation is the one of an FDE's initial location and
/// each FDE has one (see [`check_eh_frame`]): one pass over the entries and
/// the relocations, in step.
fn check_framing(frame: &[u8], relocations: &[[u8; RELOCATION_SIZE]]) -> Option<()> {
    // The relocations not yet met: the next is never before the entry being
    // read. Where the next patches; past the last, the end of all.
    let mut pending = relocations.iter();
    let mut next = pending.next();
    let patched =
        |entry: Option<&[u8; RELOCATION_SIZE]>| entry.map_or(u64::MAX, |entry| u64_in(entry, 0));
    let mut next_patched = patched(next);
    let mut cies = Vec::new();
    let mut offset = 0;
    while let Some(length) = frame.get(offset..).and_then(<[u8]>::first_chunk::<4>) {
        let length = u32::from_le_bytes(*length) as usize;
        if length == 0 {
            break;
        }
        // A length of 0xffffffff (a 64-bit length, which LLVM does not
        // write) ends past the frame, whose size fits in 32 bits.
        let end = offset.checked_add(4)?.checked_add(length)?;
        if end > frame.len() || length < 4 {
            return None;
        }
        // Within the entry: its length is at least 4.
        let cie_pointer = frame.get(offset + 4..).and_then(<[u8]>::first_chunk::<4>)?;
        let cie_pointer = u32::from_le_bytes(*cie_pointer) as usize;
        if cie_pointer == 0 {
            cies.push(offset);
        } else {
            // One relocation, of its initial location, 8 bytes in.
            let cie = (offset + 4).checked_sub(cie_pointer)?;
            if next_patched != offset as u64 + 8
                || (cies.last() != Some(&cie) && cies.binary_search(&cie).is_err())
            {
                return None;
            }
            let relocation = next?;
            let kind = u32_in(relocation, 8);
            // Its bytes inside the entry: a piece copies the entry alone.
            if offset as u64 + 8 + fixup_width(kind) > end as u64 {
                return None;
            }
            next = pending.next();
            next_patched = patched(next);
        }
        // No other relocation inside the entry.
        if next_patched < end as u64 {
            return None;
        }
        offset = end;
    }
    next.is_none().then_some(())
}

/// Whether the sections FDEs' relocations (`relocations`, one per FDE)
/// name ascend (see [`check_eh_frame`]).
fn order_described(
    relocations: &[[u8; RELOCATION_SIZE]],
    described: impl Fn(u32) -> Option<u32>,
) -> DescribedOrder {
    let mut previous = 0;
    for relocation in relocations {
        // The symbol's index is the high half of the 8-byte r_info.
        let symbol = u32_in(relocation, 12);
        match described(symbol) {
            Some(section) if section >= previous => previous = section,
            _ => return DescribedOrder::Unordered,
        }
    }
    DescribedOrder::Ascending
}

/// The order of the sections `.eh_frame`'s entries describe.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum DescribedOrder {
    Ascending,
    /// Not ascending, or an entry's symbol is not in the symbol table.
    Unordered,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CIE, then an FDE of each of `symbols`, with the relocations of
    /// their initial locations (R_X86_64_PC32).
    fn frame_of(symbols: &[u32]) -> (Vec<u8>, Vec<u8>) {
        let mut frame = Vec::new();
        frame.extend_from_slice(&12u32.to_le_bytes());
        frame.extend_from_slice(&0u32.to_le_bytes());
        frame.extend_from_slice(&[0; 8]);
        let mut relocations = Vec::new();
        for &symbol in symbols {
            let offset = frame.len() as u32;
            frame.extend_from_slice(&16u32.to_le_bytes());
            frame.extend_from_slice(&(offset + 4).to_le_bytes());
            frame.extend_from_slice(&[0; 12]);
            relocations.extend_from_slice(&u64::from(offset + 8).to_le_bytes());
            relocations.extend_from_slice(&((u64::from(symbol) << 32) | 2).to_le_bytes());
            relocations.extend_from_slice(&0i64.to_le_bytes());
        }
        (frame, relocations)
    }

    /// Symbol `n` is defined in section `10 * n`; symbol 9 is not in the
    /// symbol table.
    fn described(symbol: u32) -> Option<u32> {
        (symbol != 9).then_some(10 * symbol)
    }

    #[test]
    fn entries_in_the_order_of_their_sections_are_ascending() {
        let (frame, relocations) = frame_of(&[1, 2, 2, 3]);
        assert_eq!(
            check_eh_frame(&frame, &relocations, described),
            Some(DescribedOrder::Ascending)
        );
    }

    #[test]
    fn entries_out_of_the_order_of_their_sections_are_unordered() {
        let (frame, relocations) = frame_of(&[1, 3, 2]);
        assert_eq!(
            check_eh_frame(&frame, &relocations, described),
            Some(DescribedOrder::Unordered)
        );
    }

    #[test]
    fn an_entry_of_a_symbol_the_table_lacks_is_unordered() {
        let (frame, relocations) = frame_of(&[1, 9, 10]);
        assert_eq!(
            check_eh_frame(&frame, &relocations, described),
            Some(DescribedOrder::Unordered)
        );
    }

    #[test]
    fn a_second_relocation_in_an_entry_is_refused() {
        let (frame, mut relocations) = frame_of(&[1, 2]);
        // An LSDA pointer of the first FDE (at 16 + 12), before the second
        // FDE's relocation.
        let mut lsda = Vec::new();
        lsda.extend_from_slice(&28u64.to_le_bytes());
        lsda.extend_from_slice(&((4u64 << 32) | 2).to_le_bytes());
        lsda.extend_from_slice(&0i64.to_le_bytes());
        relocations.splice(24..24, lsda);
        assert_eq!(check_eh_frame(&frame, &relocations, described), None);
    }
}
