//! Engine generations: whether a package found for an import can be the one
//! the importer was built against.
//!
//! A UT2004 map that imports `Engine` needs UT2004's `Engine.u` (v128), not
//! UT99's (v69): names alone do not tell them apart, so a folder holding
//! both games would otherwise report the dependency as found. The
//! generation comes from the package version, as UEViewer classes packages
//! (`Unreal/UnCore.h`: below `PACKAGE_V2 = 100` UE1, below `PACKAGE_V3 =
//! 180` UE2, otherwise UE3; `classic.md` §3.2). Within a generation, the
//! licensee version tells games apart: 0 is Epic's own engine line and fits
//! any game of its generation; Epic's UT2003/UT2004 licensees 25–29 load
//! each other's packages; any other two different licensees are different
//! games (Splinter Cell 9–17, Unreal 2 2609, Bioshock 56–59, ...).

use std::io::Read;
use std::path::Path;

use serde::Serialize;

/// An engine generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Generation {
    /// Unreal Engine 1 (versions below 100: Unreal, UT99, Deus Ex, Rune, ...).
    UE1,
    /// Unreal Engine 2 (versions 100–179: UT2003, UT2004, Killing Floor, ...).
    UE2,
    /// Unreal Engine 3 or later (version 180 and above).
    UE3,
}

impl std::fmt::Display for Generation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Generation::UE1 => "UE1",
            Generation::UE2 => "UE2",
            Generation::UE3 => "UE3",
        })
    }
}

/// A package's file version and licensee version (from its header).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct PkgVersion {
    /// File version (low 16 bits of the header's version field).
    pub version: u16,
    /// Licensee version (high 16 bits).
    pub licensee: u16,
}

/// Epic's UT2003/UT2004 licensee versions (`classic.md` §3.2).
const EPIC_UT2: std::ops::RangeInclusive<u16> = 25..=29;

impl PkgVersion {
    /// The engine generation of this version.
    pub fn generation(self) -> Generation {
        match self.version {
            0..=99 => Generation::UE1,
            100..=179 => Generation::UE2,
            _ => Generation::UE3,
        }
    }

    /// Why a package of this version cannot be the one an `importer`
    /// package was built against (see the module notes), if it cannot.
    pub fn mismatch(self, importer: PkgVersion) -> Option<String> {
        if self.generation() != importer.generation() {
            return Some(format!(
                "it is {} {self}, the importer is {} {importer}",
                self.generation(),
                importer.generation()
            ));
        }
        let (a, b) = (self.licensee, importer.licensee);
        let same_game =
            a == 0 || b == 0 || a == b || (EPIC_UT2.contains(&a) && EPIC_UT2.contains(&b));
        (!same_game).then(|| {
            format!("it is {self} (licensee {a}), the importer is {importer} (licensee {b}): another game")
        })
    }

    /// The version of the package file at `path`, read from its first 8
    /// bytes (either byte order); `None` when it has no plain package tag
    /// (not a package, or an encrypted Lineage II one).
    pub fn read(path: &Path) -> Option<PkgVersion> {
        let mut f = pakrat_io::open_regular(path).ok()?;
        let mut b = [0u8; 8];
        f.read_exact(&mut b).ok()?;
        let tag = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let v = match tag {
            0x9E2A_83C1 | 0x9E2A_83C2 => u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            0xC183_2A9E | 0xC283_2A9E => u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
            _ => return None,
        };
        Some(PkgVersion {
            version: v as u16,
            licensee: (v >> 16) as u16,
        })
    }
}

impl std::fmt::Display for PkgVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "v{}", self.version)?;
        if self.licensee != 0 {
            write!(f, "/{}", self.licensee)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(version: u16, licensee: u16) -> PkgVersion {
        PkgVersion { version, licensee }
    }

    #[test]
    fn generations_and_licensees() {
        assert_eq!(v(69, 0).generation(), Generation::UE1);
        assert_eq!(v(128, 29).generation(), Generation::UE2);
        assert_eq!(v(868, 0).generation(), Generation::UE3);
        let m = v(69, 0).mismatch(v(128, 29)).unwrap();
        assert_eq!(m, "it is UE1 v69, the importer is UE2 v128/29");
        // UT2004 loads UT2003 packages; licensee 0 fits its generation.
        assert!(v(119, 25).mismatch(v(128, 29)).is_none());
        assert!(v(128, 0).mismatch(v(126, 29)).is_none());
        assert!(v(61, 0).mismatch(v(69, 0)).is_none());
        // Unreal 2 (licensee 2609) is another game than UT2004.
        assert!(v(126, 2609).mismatch(v(128, 29)).is_some());
    }
}
