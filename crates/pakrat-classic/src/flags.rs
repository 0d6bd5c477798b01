//! Package flags (`PKG_*`) and object flags (`RF_*`) with their names.
//!
//! Values from Epic's UT v432 headers (`Core/Inc/UnObjBas.h`), see
//! `classic.md` §3.1 and §3.5. Bits without a known name are reported as
//! `0x…` so nothing is hidden.

/// Package flag bits and their names (UT432 `EPackageFlags`; `DeltaCompress`
/// from Unreal 227; bit 0x20 is also set on stock UT99/UT2004 packages whose
/// meaning there is not established, `classic.md` §3.1).
pub const PACKAGE_FLAGS: &[(u32, &str)] = &[
    (0x0000_0001, "AllowDownload"),
    (0x0000_0002, "ClientOptional"),
    (0x0000_0004, "ServerSideOnly"),
    (0x0000_0008, "BrokenLinks"),
    (0x0000_0010, "Unsecure"),
    (0x0000_0020, "DeltaCompress"),
    (0x0000_8000, "Need"),
];

/// `PKG_AllowDownload`.
pub const PKG_ALLOW_DOWNLOAD: u32 = 0x1;
/// `PKG_ClientOptional`.
pub const PKG_CLIENT_OPTIONAL: u32 = 0x2;
/// `PKG_ServerSideOnly`.
pub const PKG_SERVER_SIDE_ONLY: u32 = 0x4;

/// Object flag bits and their names (UT432 `EObjectFlags`).
pub const OBJECT_FLAGS: &[(u32, &str)] = &[
    (0x0000_0001, "Transactional"),
    (0x0000_0002, "Unreachable"),
    (0x0000_0004, "Public"),
    (0x0000_0008, "TagImp"),
    (0x0000_0010, "TagExp"),
    (0x0000_0020, "SourceModified"),
    (0x0000_0040, "TagGarbage"),
    (0x0000_0200, "NeedLoad"),
    (0x0000_0400, "HighlightedName"),
    (0x0000_0800, "InSingularFunc"),
    (0x0000_1000, "Suppress"),
    (0x0000_2000, "InEndState"),
    (0x0000_4000, "Transient"),
    (0x0000_8000, "PreLoading"),
    (0x0001_0000, "LoadForClient"),
    (0x0002_0000, "LoadForServer"),
    (0x0004_0000, "LoadForEdit"),
    (0x0008_0000, "Standalone"),
    (0x0010_0000, "NotForClient"),
    (0x0020_0000, "NotForServer"),
    (0x0040_0000, "NotForEdit"),
    (0x0080_0000, "Destroyed"),
    (0x0100_0000, "NeedPostLoad"),
    (0x0200_0000, "HasStack"),
    (0x0400_0000, "Native"),
    (0x0800_0000, "Marked"),
    (0x1000_0000, "ErrorShutdown"),
    (0x2000_0000, "DebugPostLoad"),
    (0x4000_0000, "DebugSerialize"),
    (0x8000_0000, "DebugDestroy"),
];

/// `RF_HasStack`: the object data starts with an `FStateFrame`.
pub const RF_HAS_STACK: u32 = 0x0200_0000;
/// `RF_Public`.
pub const RF_PUBLIC: u32 = 0x0000_0004;
/// `RF_Native`.
pub const RF_NATIVE: u32 = 0x0400_0000;

fn names(value: u32, table: &[(u32, &'static str)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    for &(bit, name) in table {
        if value & bit != 0 {
            out.push(name.to_string());
            rest &= !bit;
        }
    }
    for i in 0..32 {
        let bit = 1u32 << i;
        if rest & bit != 0 {
            out.push(format!("{bit:#x}"));
        }
    }
    out
}

/// Names of the package flags set in `flags` (unknown bits as `0x…`).
pub fn package_flag_names(flags: u32) -> Vec<String> {
    names(flags, PACKAGE_FLAGS)
}

/// Names of the object flags set in `flags` (unknown bits as `0x…`).
pub fn object_flag_names(flags: u32) -> Vec<String> {
    names(flags, OBJECT_FLAGS)
}

/// The bit of a package flag by name (case-insensitive), e.g. `"AllowDownload"`.
pub fn package_flag_bit(name: &str) -> Option<u32> {
    PACKAGE_FLAGS
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|&(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_names() {
        assert_eq!(package_flag_names(0x21), ["AllowDownload", "DeltaCompress"]);
        assert_eq!(
            package_flag_names(0x8000_0005),
            ["AllowDownload", "ServerSideOnly", "0x80000000"]
        );
        assert_eq!(
            object_flag_names(0x0207_0001),
            [
                "Transactional",
                "LoadForClient",
                "LoadForServer",
                "LoadForEdit",
                "HasStack"
            ]
        );
        assert_eq!(package_flag_bit("serversideonly"), Some(4));
        assert_eq!(package_flag_bit("nope"), None);
    }
}
