//! Every corpus file is detected as what the manifest says it is, from its
//! first and last bytes only, and a probe of the file sees the same as a
//! probe of its bytes in memory.

use std::path::Path;

use pakrat_detect::{detect, detect_file, Format, Probe};
use pakrat_testkit::{manifest, Entry};

fn ext(e: &Entry) -> String {
    Path::new(&e.local_path)
        .extension()
        .map(|x| x.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// What the manifest row says the file is (`None`: a file pakrat does not
/// read as a whole, such as `.uexp`, `.ubulk`, loose zen packages).
fn expected(e: &Entry) -> Option<Option<Format>> {
    let x = ext(e);
    Some(match (e.kind.as_str(), x.as_str()) {
        ("ue1" | "ue2" | "ue3" | "licensee", _) => Some(Format::Package),
        ("umod", _) => Some(Format::Umod),
        ("uz", _) => Some(Format::Uz),
        (_, "utoc") => Some(Format::IoStoreToc),
        (_, "ucas") => Some(Format::IoStoreCas),
        (_, "pak") => Some(Format::Pak),
        ("usmap", _) => Some(Format::Usmap),
        // UE 4.27's zen packages carry the .uasset name ("no legacy twin").
        ("zenpair", "uasset") if e.detail.contains("no legacy twin") => None,
        ("zenpair" | "pakdata", "uasset" | "umap") => Some(Format::LegacyPackage),
        // Raw container header chunks: the UE5 form has a signature; the
        // UE4 ones (4.27, the two bug-report headers) have none.
        ("zenpair", "bin")
            if e.local_path.contains("/ContainerHeader") && e.detail.starts_with("UE5") =>
        {
            Some(Format::ContainerHeader)
        }
        (
            "zenpair",
            "uexp" | "ubulk" | "uzenasset" | "bin" | "ushaderbytecode" | "uzenshaderbytecode",
        ) => None,
        _ => return None,
    })
}

#[test]
fn every_corpus_file_is_what_the_manifest_says() {
    let Some(rows) = manifest() else { return };
    let mut checked = 0;
    let mut wrong = Vec::new();
    for e in rows.iter().filter(|e| !e.is_negative()) {
        let Some(want) = expected(e) else { continue };
        let (found, probe) = detect_file(&e.path).expect("probe a corpus file");
        assert!(probe.head().len() <= Probe::HEAD && probe.tail().len() <= Probe::TAIL);
        let data = std::fs::read(&e.path).expect("read a corpus file");
        let in_memory = detect(&e.path, &Probe::of_bytes(&data));
        assert_eq!(
            found, in_memory,
            "{}: file and bytes disagree",
            e.local_path
        );
        if found != want {
            wrong.push(format!(
                "{} ({}): {found:?}, expected {want:?}",
                e.local_path, e.kind
            ));
        }
        checked += 1;
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked >= 300, "only {checked} corpus files checked");
}
