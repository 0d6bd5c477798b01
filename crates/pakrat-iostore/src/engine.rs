//! Which container format each engine release writes: the TOC version, the
//! container header version and the companion `.pak` version
//! (`iostore.md` §4, §14.1, §16).
//!
//! One table, used by every writer (`iostore create`, `zen from-legacy
//! --into`). Sources, fact by fact:
//! * TOC and container header versions of UE 4.27–5.7: retoc
//!   `retoc/src/version.rs` (`toc_version`, `container_header_version`).
//! * Checked on real files in the corpus: UE 5.8 and 6.0 (the CUE4Parse
//!   fixtures: TOC v8 / v10, header v5, patch paks v12 / v15); the container
//!   headers of UE 4.27 (no signature), 5.0 (v1) and 5.3 (v3) from retoc's
//!   tests (`zenpair/retoc/`); UE 4.27's UnrealPak writes pak v11
//!   (`pak/repak_tests/`).
//! * Pak versions of UE 5.0–5.6: v11 (`PakFile_Version_Fnv64BugFix`, UE 5.6's
//!   `IPlatformFilePak.h` has no later one; a UE 5.5.4 game ships pak v11 with
//!   TOC v8, UnrealReZen issue #68). UE 5.7's engine source has
//!   `PakFile_Version_Utf8PakDirectory` (12) as its latest.

use crate::container_header::HeaderForm;

/// The container format of one engine release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContainerFormat {
    /// The release, `X.Y`.
    pub engine: &'static str,
    /// `.utoc` version (`EIoStoreTocVersion`).
    pub toc_version: u8,
    /// Container header form and version (`EIoContainerHeaderVersion`).
    pub header: HeaderForm,
    /// Companion `.pak` version (`FPakInfo::Version`).
    pub pak_version: u32,
}

const fn f(engine: &'static str, toc: u8, header: HeaderForm, pak: u32) -> ContainerFormat {
    ContainerFormat {
        engine,
        toc_version: toc,
        header,
        pak_version: pak,
    }
}

/// Engine release → container format, oldest first. Releases before 4.27
/// are not here: they write TOC v1–v2, which pakrat does not write.
pub const FORMATS: &[ContainerFormat] = &[
    f("4.27", 3, HeaderForm::Ue4, 11),
    f("5.0", 5, HeaderForm::Ue5(1), 11),
    f("5.1", 5, HeaderForm::Ue5(2), 11),
    f("5.2", 5, HeaderForm::Ue5(2), 11),
    f("5.3", 5, HeaderForm::Ue5(3), 11),
    f("5.4", 6, HeaderForm::Ue5(3), 11),
    f("5.5", 8, HeaderForm::Ue5(4), 11),
    f("5.6", 8, HeaderForm::Ue5(5), 11),
    f("5.7", 8, HeaderForm::Ue5(5), 12),
    f("5.8", 8, HeaderForm::Ue5(5), 12),
    f("6.0", 10, HeaderForm::Ue5(5), 15),
];

/// The format of release `v` (`5.4`, also `5.4.2` or `UE5.4`); `None` for a
/// release not in [`FORMATS`].
pub fn format_for(v: &str) -> Option<&'static ContainerFormat> {
    let v = v.trim();
    let v = v
        .strip_prefix("UE")
        .or_else(|| v.strip_prefix("ue"))
        .unwrap_or(v);
    let mut parts = v.split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = match parts.next() {
        Some(m) => m.parse().ok()?,
        None => 0,
    };
    if let Some(patch) = parts.next() {
        patch.parse::<u32>().ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    let want = format!("{major}.{minor}");
    FORMATS.iter().find(|x| x.engine == want)
}

/// The releases in the table, for messages (`4.27, 5.0, … 6.0`).
pub fn known() -> String {
    FORMATS
        .iter()
        .map(|x| x.engine)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The releases whose TOC version and container header form are these
/// (several share a pair, e.g. 5.6–5.8 write TOC v8 with header v5).
pub fn releases_of(toc_version: u8, header: HeaderForm) -> Vec<&'static ContainerFormat> {
    FORMATS
        .iter()
        .filter(|x| x.toc_version == toc_version && x.header == header)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_what_the_sources_say() {
        let get = |v| {
            let x = format_for(v).unwrap();
            (x.toc_version, x.header, x.pak_version)
        };
        assert_eq!(get("4.27"), (3, HeaderForm::Ue4, 11));
        assert_eq!(get("5.0"), (5, HeaderForm::Ue5(1), 11));
        assert_eq!(get("5.3"), (5, HeaderForm::Ue5(3), 11));
        assert_eq!(get("5.4"), (6, HeaderForm::Ue5(3), 11));
        assert_eq!(get("5.4.2"), (6, HeaderForm::Ue5(3), 11));
        assert_eq!(get("UE5.5"), (8, HeaderForm::Ue5(4), 11));
        assert_eq!(get("5.6"), (8, HeaderForm::Ue5(5), 11));
        assert_eq!(get("5.8"), (8, HeaderForm::Ue5(5), 12));
        assert_eq!(get("6"), (10, HeaderForm::Ue5(5), 15));
        for bad in ["4.26", "5.9", "7.0", "5.x", "", "5.4.1.1"] {
            assert!(format_for(bad).is_none(), "{bad}");
        }
        // Every row can be written.
        for x in FORMATS {
            assert!(
                (crate::write::MIN_WRITE_VERSION..=crate::toc::LATEST_VERSION)
                    .contains(&x.toc_version),
                "{}",
                x.engine
            );
            assert!(x.pak_version <= pakrat_pak::footer::LATEST_VERSION);
        }
        assert_eq!(
            releases_of(8, HeaderForm::Ue5(5))
                .iter()
                .map(|x| x.engine)
                .collect::<Vec<_>>(),
            ["5.6", "5.7", "5.8"]
        );
    }
}
