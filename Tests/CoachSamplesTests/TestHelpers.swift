import CoachRandom

/// A seeded generator with a uniform helper for tests.
struct SeededGeneratorForTests {
    var generator: SeededGenerator
    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }
    mutating func uniform(_ low: Float, _ high: Float) -> Float { generator.nextUniform(low, high) }
}
