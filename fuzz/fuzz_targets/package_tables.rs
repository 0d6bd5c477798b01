//! UE1/UE2 package header + name/import/export tables + reference
//! resolution (strict and lenient parse, problems list, every path).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_classic::{ObjRef, Package, Summary};

fuzz_target!(|data: &[u8]| {
    if let Some(s) = ok(Summary::parse(data)) {
        let _ = s.package_flag_names();
        let _ = s.is_ue2();
    }
    let _ = ok(Package::parse(data));
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    for p in pkg.problems() {
        let _ = format!("{p:?}");
    }
    let _ = pkg.imported_packages();
    for i in 0..pkg.exports.len() {
        let _ = ok(pkg.export_class_name(i));
        let _ = ok(pkg.export_path(i));
        let _ = ok(pkg.export_data(i));
    }
    for i in 0..pkg.imports.len() {
        let _ = ok(pkg.import_package(i));
        let _ = ok(pkg.object_path(ObjRef::import(i)));
        let _ = ok(pkg.class_name(ObjRef::import(i)));
    }
    let _ = pkg.find_exports("None");
});
