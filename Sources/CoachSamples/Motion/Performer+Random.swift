import CoachRandom

extension Performer {
    /// A random person: body proportions within `heights`, handedness, tempo and a standing
    /// posture of their own.
    public static func random(identifier: Int, heights: ClosedRange<Float> = 1.5...2.0, leftHanded: Bool,
                              using g: inout SeededGenerator) -> Performer {
        let proportions = BodyProportions.random(heights: heights, using: &g)
        let stance = g.nextUniform(2, 10), arms = g.nextUniform(4, 14)
        let rest = BodyPose.standing.setting([
            .rightHipAbduction: stance, .leftHipAbduction: stance, .rightKneeFlexion: g.nextUniform(2, 10),
            .leftKneeFlexion: g.nextUniform(2, 10), .rightShoulderElevation: arms, .leftShoulderElevation: arms,
            .rightElbowFlexion: g.nextUniform(5, 35), .leftElbowFlexion: g.nextUniform(5, 35),
            .trunkFlexion: g.nextUniform(-3, 8), .neckFlexion: g.nextUniform(-5, 15),
        ])
        return Performer(identifier: identifier, proportions: proportions, isLeftHanded: leftHanded,
                         tempo: g.nextUniform(0.8, 1.25), restingPose: rest)
    }
}
