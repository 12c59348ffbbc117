//! Whether an object's `.eh_frame` can be split: each entry copied into the
//! piece of the function it describes, with nothing else to carry.

use super::elf::{RELOCATION_SIZE, Relocation, fixup_width, u32_at, u64_at};

/// `Some` when `.eh_frame` (`frame`, whose relocations are the `Elf64_Rela`
/// entries `relocations`) holds only what a piece can carry:
/// `None` when a CIE has a relocation (a personality) or an FDE has more
/// than the one of its initial location (an LSDA), since a piece would have
/// to carry what they point to; also for what LLVM does not write (64-bit
/// lengths, relocations out of order or outside every entry). One pass over
/// its entries and relocations, in step; which section each entry describes
/// is read when a piece needs it.
pub(super) fn check_eh_frame(frame: &[u8], relocations: &[u8]) -> Option<()> {
    let count = relocations.len() / RELOCATION_SIZE;
    // Where relocation `index` patches; past the last, the end of all.
    let patched = |index: usize| {
        if index < count {
            u64_at(relocations, index * RELOCATION_SIZE)
        } else {
            Some(u64::MAX)
        }
    };
    // The next relocation, which is never before the entry being read.
    let mut next = 0;
    let mut cies = Vec::new();
    let mut offset = 0;
    while offset + 4 <= frame.len() {
        let length = usize::try_from(u32_at(frame, offset)?).ok()?;
        if length == 0 {
            break;
        }
        let end = offset.checked_add(4)?.checked_add(length)?;
        // 0xffffffff: a 64-bit length, which LLVM does not write.
        if length == 0xffff_ffff || end > frame.len() || length < 4 {
            return None;
        }
        let cie_pointer = usize::try_from(u32_at(frame, offset + 4)?).ok()?;
        if cie_pointer == 0 {
            cies.push(offset);
        } else {
            // One relocation, of its initial location, 8 bytes in.
            let cie = (offset + 4).checked_sub(cie_pointer)?;
            if patched(next)? != offset as u64 + 8 || cies.binary_search(&cie).is_err() {
                return None;
            }
            // Its bytes inside the entry: a piece copies the entry alone.
            let relocation = Relocation::read(relocations.get(next * RELOCATION_SIZE..)?)?;
            if offset as u64 + 8 + fixup_width(relocation.kind) > end as u64 {
                return None;
            }
            u32::try_from(end).ok()?;
            next += 1;
        }
        // No other relocation inside the entry.
        if patched(next)? < end as u64 {
            return None;
        }
        offset = end;
    }
    (next == count).then_some(())
}
