//! Which machine an ELF file is for, and whether an executor runs it: what
//! `send_binary` checks before it loads or sends a binary, against the host's
//! triple (`local`, an executor-server's worker) or the triple a server
//! stated in its handshake. A binary that is no ELF file, or an executor of an
//! architecture this table lacks, is not checked here: the loader says what
//! is wrong with it.

use std::{fs::File, io::Read, path::Path};

use crate::{
    error::{Result, RuntimeError},
    executor::BinaryFormat,
};

const ELF_MAGIC: &[u8; 4] = b"\x7fELF";
const ELFCLASS32: u8 = 1;
const ELFCLASS64: u8 = 2;
const ELFDATA2LSB: u8 = 1;
const ELFDATA2MSB: u8 = 2;
/// The ELF header up to `e_machine`: `e_ident` (16 bytes), `e_type`, then it.
pub const ELF_MACHINE_END: usize = 20;

/// What an ELF header says of its machine: `e_machine`, the class and the
/// data encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfMachine {
    machine: u16,
    is_64_bit: bool,
    little_endian: bool,
}

/// The architectures of LLVM triples, by their first component, with the
/// ELF machine each runs: `(names, e_machine, 64-bit, little-endian)`. The
/// first name of each is how messages name its objects.
const ARCHITECTURES: &[(&[&str], u16, bool, bool)] = &[
    (&["x86_64", "amd64", "x86_64h"], 62, true, true),
    (&["i386", "i486", "i586", "i686", "x86"], 3, false, true),
    (&["aarch64", "arm64"], 183, true, true),
    (&["aarch64_be"], 183, true, false),
    (&["arm", "thumb"], 40, false, true),
    (&["armeb", "thumbeb"], 40, false, false),
    (&["riscv64"], 243, true, true),
    (&["riscv32"], 243, false, true),
    (&["riscv64be"], 243, true, false),
    (&["riscv32be"], 243, false, false),
    (&["powerpc64le", "ppc64le"], 21, true, true),
    (&["powerpc64", "ppc64"], 21, true, false),
    (&["powerpc", "ppc", "ppc32"], 20, false, false),
    (&["powerpcle", "ppcle", "ppc32le"], 20, false, true),
    (&["s390x", "systemz"], 22, true, false),
    (&["loongarch64"], 258, true, true),
    (&["loongarch32"], 258, false, true),
    (&["mips64el"], 8, true, true),
    (&["mips64"], 8, true, false),
    (&["mipsel"], 8, false, true),
    (&["mips"], 8, false, false),
    (&["sparcv9", "sparc64"], 43, true, false),
    (&["sparc"], 2, false, false),
];

impl ElfMachine {
    /// The machine of an ELF file from its first bytes (at least
    /// [`ELF_MACHINE_END`]); None for a file that is not ELF.
    pub fn of_file(bytes: &[u8]) -> Option<Self> {
        let header = bytes.get(..ELF_MACHINE_END)?;
        if &header[..4] != ELF_MAGIC {
            return None;
        }
        let is_64_bit = match header[4] {
            ELFCLASS32 => false,
            ELFCLASS64 => true,
            _ => return None,
        };
        let (little_endian, machine) = match header[5] {
            ELFDATA2LSB => (true, u16::from_le_bytes([header[18], header[19]])),
            ELFDATA2MSB => (false, u16::from_be_bytes([header[18], header[19]])),
            _ => return None,
        };
        Some(Self {
            machine,
            is_64_bit,
            little_endian,
        })
    }

    /// The machine an executor of LLVM `triple` runs; None for an
    /// architecture the table lacks.
    pub fn of_triple(triple: &str) -> Option<Self> {
        let arch = triple.split('-').next().unwrap_or_default();
        // ARM's sub-architectures: armv7a, thumbv7em, armv8eb, ...
        let arch =
            match arch {
                _ if arch.starts_with("arm") && !arch.starts_with("arm64") => {
                    if arch.ends_with("eb") { "armeb" } else { "arm" }
                }
                _ if arch.starts_with("thumb") => {
                    if arch.ends_with("eb") {
                        "thumbeb"
                    } else {
                        "thumb"
                    }
                }
                _ => arch,
            };
        ARCHITECTURES
            .iter()
            .find(|(names, ..)| names.contains(&arch))
            .map(|&(_, machine, is_64_bit, little_endian)| Self {
                machine,
                is_64_bit,
                little_endian,
            })
    }

    /// The architecture's name (`aarch64`), or its ELF fields when the table
    /// lacks it.
    pub fn name(self) -> String {
        ARCHITECTURES
            .iter()
            .find(|&&(_, machine, is_64_bit, little_endian)| {
                self == Self {
                    machine,
                    is_64_bit,
                    little_endian,
                }
            })
            .map(|(names, ..)| names[0].to_owned())
            .unwrap_or_else(|| {
                format!(
                    "ELF machine {} ({}-bit, {}-endian)",
                    self.machine,
                    if self.is_64_bit { 64 } else { 32 },
                    if self.little_endian { "little" } else { "big" }
                )
            })
    }
}

/// The first bytes of the file at `path`, as many as [`check`] reads; fewer
/// (none) when it is shorter or cannot be read, which its loader reports.
pub fn read_header(path: &Path) -> Vec<u8> {
    let mut header = Vec::with_capacity(ELF_MACHINE_END);
    if let Ok(file) = File::open(path) {
        let _ = file.take(ELF_MACHINE_END as u64).read_to_end(&mut header);
    }
    header
}

/// Refuses a binary whose first bytes (`header`) say it is for another
/// machine than an executor of `triple` runs.
pub fn check(header: &[u8], format: BinaryFormat, triple: &str) -> Result<()> {
    if format == BinaryFormat::Asset {
        return Ok(());
    }
    let (Some(binary), Some(executor)) =
        (ElfMachine::of_file(header), ElfMachine::of_triple(triple))
    else {
        return Ok(());
    };
    if binary == executor {
        return Ok(());
    }
    Err(RuntimeError::WrongMachine {
        format,
        binary: binary.name(),
        executor: triple.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first bytes of an ELF header of this class, data encoding and
    /// machine.
    fn header(class: u8, data: u8, machine: u16) -> Vec<u8> {
        let mut bytes = vec![0; ELF_MACHINE_END];
        bytes[..4].copy_from_slice(ELF_MAGIC);
        bytes[4] = class;
        bytes[5] = data;
        let machine = if data == ELFDATA2MSB {
            machine.to_be_bytes()
        } else {
            machine.to_le_bytes()
        };
        bytes[18..20].copy_from_slice(&machine);
        bytes
    }

    const OBJECT: BinaryFormat = BinaryFormat::RelocatableObject;

    #[test]
    fn an_object_of_the_executors_machine_passes() {
        let x86_64 = header(ELFCLASS64, ELFDATA2LSB, 62);
        check(&x86_64, OBJECT, "x86_64-pc-linux-gnu").unwrap();
        check(&x86_64, OBJECT, "x86_64-unknown-linux-gnu").unwrap();
        let aarch64 = header(ELFCLASS64, ELFDATA2LSB, 183);
        check(&aarch64, BinaryFormat::SharedLibrary, "arm64-apple-darwin").unwrap();
        let armv7 = header(ELFCLASS32, ELFDATA2LSB, 40);
        check(&armv7, OBJECT, "armv7a-unknown-linux-gnueabihf").unwrap();
        let s390x = header(ELFCLASS64, ELFDATA2MSB, 22);
        check(&s390x, OBJECT, "s390x-ibm-linux").unwrap();
    }

    #[test]
    fn another_machine_class_or_encoding_is_refused_naming_both() {
        let aarch64 = header(ELFCLASS64, ELFDATA2LSB, 183);
        assert_eq!(
            check(&aarch64, OBJECT, "x86_64-pc-linux-gnu")
                .unwrap_err()
                .to_string(),
            "the object file is for aarch64, the executor runs x86_64-pc-linux-gnu"
        );
        // The same e_machine, another class or data encoding.
        let riscv32 = header(ELFCLASS32, ELFDATA2LSB, 243);
        let error = check(&riscv32, OBJECT, "riscv64-unknown-linux-gnu").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the object file is for riscv32, the executor runs riscv64-unknown-linux-gnu"
        );
        let big = header(ELFCLASS64, ELFDATA2MSB, 183);
        let error = check(&big, BinaryFormat::SharedLibrary, "aarch64-linux-gnu").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the shared library is for aarch64_be, the executor runs aarch64-linux-gnu"
        );
        let unknown = header(ELFCLASS64, ELFDATA2LSB, 9999);
        let error = check(&unknown, OBJECT, "x86_64-pc-linux-gnu").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the object file is for ELF machine 9999 (64-bit, little-endian), the executor runs \
             x86_64-pc-linux-gnu"
        );
    }

    #[test]
    fn assets_files_that_are_not_elf_and_unknown_triples_are_left_to_the_loader() {
        let aarch64 = header(ELFCLASS64, ELFDATA2LSB, 183);
        check(&aarch64, BinaryFormat::Asset, "x86_64-pc-linux-gnu").unwrap();
        check(&aarch64, OBJECT, "xtensa-unknown-elf").unwrap();
        check(b"\x7fELF", OBJECT, "x86_64-pc-linux-gnu").unwrap();
        check(b"#!/bin/sh\nexit 0\n....", OBJECT, "x86_64-pc-linux-gnu").unwrap();
        let mut odd_class = aarch64.clone();
        odd_class[4] = 7;
        check(&odd_class, OBJECT, "x86_64-pc-linux-gnu").unwrap();
    }
}
