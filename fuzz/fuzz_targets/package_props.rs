//! Tagged properties: state frame + property list of every export of a
//! (lenient-parsed) package, every value walked.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_classic::{props, Package};

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    for i in 0..pkg.exports.len().min(4096) {
        if let Some(o) = ok(props::read_object(&pkg, i)) {
            for p in &o.properties {
                let _ = format!("{:?}", p.value);
            }
        }
    }
});
