//! Probe names by `IgnoreMask` bit, per generation: a state's `ignores`
//! list is the probes whose bit it clears (bit `k` is name `300 + k`,
//! `NAME_PROBEMIN`).

use super::UE1_PROBES;

/// The UE2 probe names, by bit: `Core/Inc/UnNames.h` of the public UT2004
/// native headers, names 300–362. Name 335 is registered twice there
/// (`PawnLeavingVolume`, then `Die`); `PawnLeavingVolume` is the one UT2004
/// scripts declare as an event. `Probe4`, `Probe5` and `Probe58` are unnamed
/// slots (`None`). Checked on the corpus: every UE2 state's cleared bits
/// name the probes its kept source lists (`corpus_decompile`).
pub const UE2_PROBES: [Option<&str>; 63] = {
    const N: Option<&str> = None;
    [
        Some("Spawned"),
        Some("Destroyed"),
        Some("GainedChild"),
        Some("LostChild"),
        N,
        N,
        Some("Trigger"),
        Some("UnTrigger"),
        Some("Timer"),
        Some("HitWall"),
        Some("Falling"),
        Some("Landed"),
        Some("PhysicsVolumeChange"),
        Some("Touch"),
        Some("UnTouch"),
        Some("Bump"),
        Some("BeginState"),
        Some("EndState"),
        Some("BaseChange"),
        Some("Attach"),
        Some("Detach"),
        Some("ActorEntered"),
        Some("ActorLeaving"),
        Some("ZoneChange"),
        Some("AnimEnd"),
        Some("EndedRotation"),
        Some("InterpolateEnd"),
        Some("EncroachingOn"),
        Some("EncroachedBy"),
        Some("FootZoneChange"),
        Some("HeadVolumeChange"),
        Some("PostTouch"),
        Some("PawnEnteredVolume"),
        Some("MayFall"),
        Some("PushedState"),
        Some("PawnLeavingVolume"),
        Some("Tick"),
        Some("PlayerTick"),
        Some("ModifyVelocity"),
        Some("CheckMovementTransition"),
        Some("SeePlayer"),
        Some("EnemyNotVisible"),
        Some("HearNoise"),
        Some("UpdateEyeHeight"),
        Some("SeeMonster"),
        Some("SeeFriend"),
        Some("SpecialHandling"),
        Some("BotDesireability"),
        Some("NotifyBump"),
        Some("NotifyPhysicsVolumeChange"),
        Some("AIHearSound"),
        Some("NotifyHeadVolumeChange"),
        Some("NotifyLanded"),
        Some("NotifyHitWall"),
        Some("PostNetReceive"),
        Some("PreBeginPlay"),
        Some("BeginPlay"),
        Some("PostBeginPlay"),
        N,
        Some("PhysicsChangedFor"),
        Some("ActorEnteredVolume"),
        Some("ActorLeavingVolume"),
        Some("PrepareForMove"),
    ]
};

/// The probe table of a package version: UE1 below 100, UE2 from 100.
pub fn probes_for(version: u16) -> &'static [Option<&'static str>; 63] {
    if version < 100 {
        &UE1_PROBES
    } else {
        &UE2_PROBES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ue2_bits_are_names_300_on() {
        // Spot checks against UnNames.h: 306 Trigger, 312
        // PhysicsVolumeChange, 340 SeePlayer, 351 NotifyHeadVolumeChange,
        // 362 PrepareForMove.
        let t = probes_for(128);
        assert_eq!(t[6], Some("Trigger"));
        assert_eq!(t[12], Some("PhysicsVolumeChange"));
        assert_eq!(t[40], Some("SeePlayer"));
        assert_eq!(t[51], Some("NotifyHeadVolumeChange"));
        assert_eq!(t[62], Some("PrepareForMove"));
        assert_eq!(probes_for(69)[12], Some("ZoneChange"));
    }
}
