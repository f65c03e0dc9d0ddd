/// Places Vision's face joints (nose, eyes, ears) from the base of the head and the head's
/// orientation. Offsets are fractions of body height from adult head anthropometry (head height
/// about 0.13 H, Winter 2009 Fig. 4.1 — chin 0.870 H, eyes 0.936 H; interpupillary distance
/// about 0.036 H; head breadth about 0.085 H).
public enum HeadModel {
    /// Face joints of a head whose base (top of the neck) is at `base`, with `up` and `forward`
    /// unit vectors (forward need not be exactly perpendicular to up), for a person `height`
    /// metres tall: nose, right eye, left eye, right ear, left ear.
    public static func facePoints(base: SIMD3<Float>, up: SIMD3<Float>, forward: SIMD3<Float>,
                                  height: Float) -> (nose: SIMD3<Float>, rightEye: SIMD3<Float>, leftEye: SIMD3<Float>,
                                                     rightEar: SIMD3<Float>, leftEar: SIMD3<Float>) {
        let u = normalized3(up, fallback: SIMD3(0, 1, 0))
        let f = normalized3(forward - u * dot3(forward, u), fallback: SIMD3(0, 0, 1))
        let left = cross3(u, f)  // x = y × z: the head's left
        let h = height
        let nose = base + u * (0.035 * h) + f * (0.060 * h)
        let eyeCentre = base + u * (0.058 * h) + f * (0.048 * h)
        let earCentre = base + u * (0.045 * h) - f * (0.004 * h)
        return (nose, eyeCentre - left * (0.018 * h), eyeCentre + left * (0.018 * h),
                earCentre - left * (0.043 * h), earCentre + left * (0.043 * h))
    }
}
