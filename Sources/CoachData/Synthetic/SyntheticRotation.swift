import Foundation

/// A 3×3 rotation matrix for the synthetic skeletons' forward kinematics (rows stored as
/// vectors; `self * v` rotates `v`).
struct SyntheticRotation {
    var row0: SIMD3<Float>
    var row1: SIMD3<Float>
    var row2: SIMD3<Float>

    /// The identity rotation.
    static let identity = SyntheticRotation(row0: [1, 0, 0], row1: [0, 1, 0], row2: [0, 0, 1])

    /// A right-handed rotation by `angle` radians about the x axis.
    static func aboutX(_ angle: Float) -> SyntheticRotation {
        let c = cos(angle), s = sin(angle)
        return SyntheticRotation(row0: [1, 0, 0], row1: [0, c, -s], row2: [0, s, c])
    }

    /// A right-handed rotation by `angle` radians about the y axis.
    static func aboutY(_ angle: Float) -> SyntheticRotation {
        let c = cos(angle), s = sin(angle)
        return SyntheticRotation(row0: [c, 0, s], row1: [0, 1, 0], row2: [-s, 0, c])
    }

    /// A right-handed rotation by `angle` radians about the z axis.
    static func aboutZ(_ angle: Float) -> SyntheticRotation {
        let c = cos(angle), s = sin(angle)
        return SyntheticRotation(row0: [c, -s, 0], row1: [s, c, 0], row2: [0, 0, 1])
    }

    /// `self` applied to `vector`.
    static func * (rotation: SyntheticRotation, vector: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3((rotation.row0 * vector).sum(), (rotation.row1 * vector).sum(), (rotation.row2 * vector).sum())
    }

    /// The rotation that applies `right` first, then `left`.
    static func * (left: SyntheticRotation, right: SyntheticRotation) -> SyntheticRotation {
        let c0 = SIMD3(right.row0.x, right.row1.x, right.row2.x)
        let c1 = SIMD3(right.row0.y, right.row1.y, right.row2.y)
        let c2 = SIMD3(right.row0.z, right.row1.z, right.row2.z)
        func row(_ r: SIMD3<Float>) -> SIMD3<Float> {
            SIMD3((r * c0).sum(), (r * c1).sum(), (r * c2).sum())
        }
        return SyntheticRotation(row0: row(left.row0), row1: row(left.row1), row2: row(left.row2))
    }
}

/// Vector helpers for the synthetic skeletons.
enum SyntheticVector {
    /// The dot product.
    static func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }

    /// The cross product `a × b`.
    static func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// `v` scaled to unit length (or `fallback` when `v` is nearly zero).
    static func normalized(_ v: SIMD3<Float>, fallback: SIMD3<Float>) -> SIMD3<Float> {
        let length = dot(v, v).squareRoot()
        return length > 1e-6 ? v / length : fallback
    }

    /// The unit vector that is `bendDirection` made perpendicular to `axis` (both unit).
    static func perpendicular(_ bendDirection: SIMD3<Float>, to axis: SIMD3<Float>, fallback: SIMD3<Float>) -> SIMD3<Float> {
        normalized(bendDirection - dot(bendDirection, axis) * axis, fallback: fallback)
    }

    /// `v` rotated by `angle` radians about the unit `axis` (Rodrigues, for `v` ⟂ `axis`).
    static func rotated(_ v: SIMD3<Float>, about axis: SIMD3<Float>, by angle: Float) -> SIMD3<Float> {
        v * cos(angle) + cross(axis, v) * sin(angle) + axis * (dot(axis, v) * (1 - cos(angle)))
    }
}

/// Degrees to radians.
@inline(__always) func syntheticRadians(_ degrees: Float) -> Float { degrees * .pi / 180 }
