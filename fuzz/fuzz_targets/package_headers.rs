//! The C++ header writer: every class of a (lenient-parsed) package read
//! into the header model and written in both forms, with and without
//! class-specific headers.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::{headers, Package};
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    if pkg.exports.len() > 4096 {
        return;
    }
    let Some(mut h) = ok(headers::collect(&pkg, "Fuzz")) else {
        return;
    };
    let none = headers::Options::default();
    let all = headers::Options {
        has_include: &|_| true,
    };
    for form in [headers::Form::Ue1, headers::Form::Ue2] {
        h.form = form;
        let _ = headers::render(&h, &none);
        let _ = headers::render(&h, &all);
    }
});
