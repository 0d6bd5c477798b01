//! `.usmap` mappings: header, payload decompression (Oodle, Brotli,
//! Zstandard), names, enums, structs, type trees, extensions. A file that
//! reads must hold only what its own checks promise: schema indices inside
//! each struct, and every struct and enum found again by its name.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::props::Schemas;
use pakrat_asset::usmap::{self, Usmap};
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let _ = usmap::is_usmap(data);
    let _ = usmap::expected_file_size(data);
    let Some(u) = ok(Usmap::parse(data)) else {
        return;
    };
    let s: &dyn Schemas = &u;
    for st in &u.structs {
        assert!(s.find_struct(&st.name).is_some(), "struct {} not found", st.name);
        let mut next = 0u32;
        for p in &st.properties {
            assert!(u32::from(p.index) >= next, "{}: overlapping indices", st.name);
            next = u32::from(p.index) + u32::from(p.array_dim);
            assert!(next <= u32::from(st.property_count));
            let _ = p.ty.to_string();
        }
    }
    for e in &u.enums {
        assert!(s.find_enum(&e.name).is_some(), "enum {} not found", e.name);
    }
    let _ = (u.property_count(), u.enum_entry_count(), u.same_content(&u));
});
