//! One SoundWave of `pakrat export`: its audio joined from its chunks and
//! written beside the textures' files, `.wav` for PCM and ADPCM (ADPCM
//! decoded to 16-bit PCM), the codec's own stream for the others.

use pakrat_asset::props::{BulkFrom, Opened};
use pakrat_asset::sound::SoundWave;
use pakrat_io::fsutil::OutputDir;

use super::texture::{Outcome, Written};

/// Write the audio of `w` to `{base}.{ext}` below `out` (atomically).
pub fn export(
    opened: &Opened,
    from: BulkFrom<'_>,
    w: &SoundWave,
    base: &str,
    out: &OutputDir,
) -> Outcome {
    if w.chunks.is_empty() {
        return Outcome::Skipped(format!("no {} audio is cooked in it", w.format));
    }
    let audio = match w.audio(opened, from, true) {
        Ok(a) => a,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let file = format!("{base}.{}", audio.extension);
    match out.write(&file, &audio.bytes) {
        Ok(_) => Outcome::Written(vec![Written {
            file,
            width: 0,
            height: 0,
            detail: format!("{} bytes, {}", audio.bytes.len(), audio.note),
        }]),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}
