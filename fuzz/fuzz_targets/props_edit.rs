//! The property editor (`props set` / `props apply` on the model) over any
//! input: `PATH \0 VALUE \0 JSON \0 EXPORT-DATA`. The export data is
//! decoded (tagged UE 5.8, unversioned against a small schema); `set` with
//! the path and value, and `apply_json` with the JSON (when it parses), end
//! with a model or an error, never a panic; a model `set` gives is encoded
//! and decoded again; the decoded model's own JSON applies as no change.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::props::edit::{apply_json, parse_path, set};
use pakrat_asset::props::json::PackageJson;
use pakrat_asset::props::{
    decode_export, decode_export_for_write, encode_native_tail, encode_properties, Asset,
    Schemas,
};

use pakrat_fuzz::props::{asset, schemas};

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(4, |&b| b == 0);
    let (Some(path), Some(value), Some(json), Some(bytes)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let (path, value) = (
        String::from_utf8_lossy(path),
        String::from_utf8_lossy(value),
    );
    let _ = parse_path(&path);
    let s = schemas();
    for unversioned in [false, true] {
        let a = asset(bytes, 522, 1018, unversioned);
        let decoded = decode_export(&a, 0, &s);
        // The model's own JSON is no change.
        let doc = serde_json::to_value(PackageJson::new(&a, &[(0, decoded.clone())])).unwrap();
        if let Ok(e) = apply_json(&a, &s, &doc) {
            assert!(
                e.iter().all(|x| x.changes.is_empty()),
                "the printed JSON changed something"
            );
        }
        let mut p = decoded.clone();
        if set(&a, &s, 0, &mut p, &path, &value).is_ok() && decoded.error.is_none() {
            let (_, hints) = decode_export_for_write(&a, 0, &s);
            if let Ok(mut enc) = encode_properties(&a, 0, &s, &p, &hints) {
                enc.extend_from_slice(&bytes[(p.native_start as usize).min(bytes.len())..]);
                let mut b = a.clone();
                b.exports[0].data = &enc;
                let _ = decode_export(&b, 0, &s);
            }
        }
        if let Ok(j) = serde_json::from_slice::<serde_json::Value>(json) {
            let _ = apply_json(&a, &s, &j);
        }
        for class in [
            "/Script/Engine.DataTable",
            "/Script/Engine.CurveTable",
            "/Script/Engine.StringTable",
            "/Script/Engine.UserDefinedEnum",
        ] {
            let mut t = a.clone();
            t.exports[0].class = class.into();
            tail_symmetry(&t, &s, &path, &value);
        }
    }
});

/// Decode → (set) → encode the native tail → decode: the same native
/// fields.
fn tail_symmetry(a: &Asset<'_>, s: &dyn Schemas, path: &str, value: &str) {
    let (decoded, hints) = decode_export_for_write(a, 0, s);
    if decoded.error.is_some() {
        return;
    }
    let mut edited = decoded.clone();
    if set(a, s, 0, &mut edited, path, value).is_err() {
        edited = decoded.clone();
    }
    for p in [&decoded, &edited] {
        let Ok(Some(tail)) = encode_native_tail(a, 0, s, p, &hints) else {
            continue;
        };
        let data = a.exports[0].data;
        let mut bytes = data[..(p.native_start as usize).min(data.len())].to_vec();
        bytes.extend_from_slice(&tail);
        let mut b = a.clone();
        b.exports[0].data = &bytes;
        let back = decode_export(&b, 0, s);
        // (Compared as text: a NaN is not equal to itself.)
        assert_eq!(
            format!("{:?}", back.native),
            format!("{:?}", p.native),
            "the native tail did not read back"
        );
    }
}
