//! Issue 30 item 3: every raw container header chunk of the zenpair corpus
//! (UE 4.27, 5.0, 5.3 and the two headers of games that broke another
//! reader, `issues/*/header.bin`) parses and writes back byte for byte.

use pakrat_iostore::container_header::{self, HeaderForm};

#[test]
fn zenpair_container_headers_write_back_byte_for_byte() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = root.join("zenpair/retoc");
    let cases: [(&str, HeaderForm, usize); 5] = [
        ("UE4.27/ContainerHeader_1.bin", HeaderForm::Ue4, 52583),
        ("UE5.0/ContainerHeader_1.bin", HeaderForm::Ue5(1), 22559),
        ("UE5.3/ContainerHeader_1.bin", HeaderForm::Ue5(3), 3786),
        ("issues/issue7/header.bin", HeaderForm::Ue4PreInitial, 40307),
        ("issues/issue18/header.bin", HeaderForm::Ue4PreInitial, 182),
    ];
    let mut bad = Vec::new();
    for (p, form, n) in cases {
        let data = std::fs::read(d.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
        let h = container_header::parse(&data).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(h.form, form, "{p}");
        assert_eq!(h.package_ids.len(), n, "{p}");
        let back = h.to_bytes().unwrap_or_else(|e| panic!("{p}: {e}"));
        if back != data {
            let at = back.iter().zip(&data).position(|(a, b)| a != b);
            bad.push(format!(
                "{p}: {} bytes written, {} read, first difference at {at:?}",
                back.len(),
                data.len()
            ));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
