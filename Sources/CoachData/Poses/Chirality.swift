/// Which hand a hand pose belongs to (Vision's `VNChirality`).
public enum Chirality: String, Codable, Hashable, Sendable, CaseIterable {
    /// A left hand.
    case left
    /// A right hand.
    case right
    /// Not known.
    case unknown

    /// Parses `left`, `right` or `unknown` (any case; an empty text is `unknown`); nil for anything else.
    public init?(text: String) {
        let trimmed = trimmingSpaces(text).lowercased()
        if trimmed.isEmpty { self = .unknown; return }
        guard let value = Chirality(rawValue: trimmed) else { return nil }
        self = value
    }
}
