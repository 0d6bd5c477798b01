//! UE4/UE5 sounds: the cooked audio of a `SoundWave`.
//!
//! * [`wav`]: the RIFF/WAVE files that cooked `PCM`/`ADPCM` audio is, and
//!   ADPCM → 16-bit PCM.

pub mod wav;
