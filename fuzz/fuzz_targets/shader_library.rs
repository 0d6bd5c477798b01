//! Shader libraries (`.ushaderbytecode` pak form, IoStore library chunk):
//! what reads writes back byte for byte; the pak form plans its IoStore
//! groups, and the IoStore form converts back over zero-filled groups.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_iostore::shader_library::{convert, LegacyShaderLibrary, ZenShaderLibrary};
use pakrat_iostore::Numbering;

fuzz_target!(|data: &[u8]| {
    if let Some(lib) = ok(LegacyShaderLibrary::parse(data)) {
        assert!(lib.to_bytes() == data, "pak-form shader library write is not exact");
        for i in 0..lib.shader_entries.len().min(64) {
            let _ = lib.shader_code(i);
        }
        let zen = convert::plan_groups(&lib, "PCD3D_SM6", Numbering::Ue5, 4096);
        let back = ZenShaderLibrary::parse(&zen.to_bytes()).expect("a planned library reads back");
        assert_eq!(back, zen);
    }
    if let Some(zen) = ok(ZenShaderLibrary::parse(data)) {
        assert!(zen.to_bytes() == data, "IoStore shader library write is not exact");
        let total: u64 = zen.group_entries.iter().map(|g| u64::from(g.uncompressed_size)).sum();
        if total <= 1 << 20 {
            let _ = convert::same_shader_maps(&LegacyShaderLibrary::default(), &zen);
            let _ = convert::zen_to_legacy(&zen, &mut |g, _| {
                let e = zen.group_entries[g];
                Ok(vec![0; e.compressed_size.min(1 << 20) as usize])
            });
        }
    }
});
