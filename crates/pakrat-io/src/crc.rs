//! Unreal's `appMemCrc`: CRC-32/BZIP2 (poly 0x04C11DB7, init and xorout
//! 0xFFFFFFFF, not reflected). Not the zlib CRC-32. See
//! `../shared/formats/classic.md` §1.5 (UT432 `Core/Inc/FFileManagerArc.h`).

use crc::{Crc, Table, CRC_32_BZIP2};

/// The CRC engine, with a 16-entry slice table for speed.
pub static MEM_CRC: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_BZIP2);

/// CRC of a whole buffer.
pub fn mem_crc(data: &[u8]) -> u32 {
    MEM_CRC.checksum(data)
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_value() {
        assert_eq!(super::mem_crc(b"123456789"), 0xFC89_1918);
        let mut d = super::MEM_CRC.digest();
        d.update(b"1234");
        d.update(b"56789");
        assert_eq!(d.finalize(), 0xFC89_1918);
    }
}
