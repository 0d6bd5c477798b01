//! The UnrealScript decompiler: every struct export's bytecode read token
//! by token and every class of a (lenient-parsed) package decompiled, with
//! the package's own natives.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::script::{self, natives::NativeTable, Ctx};
use pakrat_classic::Package;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    if pkg.exports.len() > 4096 {
        return;
    }
    let mut natives = NativeTable::new();
    natives.add(&pkg);
    for i in 0..pkg.exports.len() {
        let ctx = Ctx {
            pkg: &pkg,
            package: "Fuzz".into(),
            class: i,
        };
        let _ = script::body_lines(&ctx, &natives, i);
        if pkg.exports[i].class.is_none() {
            let _ = script::decompile_class(&pkg, "Fuzz", i, &natives);
        }
    }
});
