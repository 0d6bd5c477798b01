//! `pakrat asset rename` on one package: a legacy package that reads is
//! renamed (header names, package name, asset registry data, strings in
//! export properties through the property writer) without panicking, and a
//! renamed package reads back under its new name with no old path left in
//! its name map.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::NoSchemas;
use pakrat_asset::rename::{rename_package, PathRename};
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let r = PathRename::new("/Game/Fixtures", "/Game/Mod").unwrap();
    for fallback in [None, Layout::for_engine("5.8")] {
        if let Some(Some(done)) = ok(rename_package(data, None, fallback, &NoSchemas, &r)) {
            let p = LegacyPackage::read(&done.main, fallback).expect("a renamed package reads back");
            assert_eq!(p.summary.package_name, done.package.1);
            assert!(p.names.iter().all(|n| r.apply(&n.text).is_none()));
        }
    }
});
