/// The hand poses the synthetic hand-pose dataset contains; the raw value is the label.
public enum SyntheticHandClass: String, CaseIterable, Sendable {
    /// All fingers extended and spread, thumb out.
    case open
    /// All fingers curled into the palm, thumb folded over them.
    case fist
    /// Index finger pointing, the others curled.
    case one
    /// Index and middle finger extended in a V, the others curled.
    case peace
    /// Anything else: half-curled and random hands, thumbs-up, three, rock, OK sign, L, four, claw.
    case background
}

/// Which hand a pose belongs to (Vision's `VNChirality`); the raw value is written to the
/// `chirality` column.
public enum SyntheticChirality: String, CaseIterable, Sendable {
    /// A left hand (the mirror image of a right hand).
    case left
    /// A right hand.
    case right
}
