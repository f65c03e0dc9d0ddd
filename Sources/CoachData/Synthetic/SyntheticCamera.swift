import Foundation

/// A simulated video camera filming a synthetic clip: where it stands relative to the
/// thrower, its lens, and where the action lands in the frame.
///
/// World frame: x toward the throwing target, y up, z to the (right-handed) thrower's
/// right. The camera looks at the centre of everything that happens in the clip from
/// `distance` metres away, then the picture is zoomed out if needed so every joint stays
/// inside the frame, and placed at `placement`.
public struct SyntheticCamera: Equatable, Sendable {
    /// Direction the camera looks from, in radians about the vertical axis: 0 films the
    /// thrower's right side with the throwing direction pointing to the image's right,
    /// π the left side with the throwing direction to the left, ±π/2 from behind or in front.
    public var azimuth: Float
    /// How far the camera looks down, in radians (0 = level).
    public var pitch: Float
    /// Rotation of the picture about the optical axis, in radians (a tilted phone).
    public var roll: Float
    /// Metres from the centre of the action; nearer means stronger perspective.
    public var distance: Float
    /// Focal length in units of the image height (1.2 ≈ a phone's main camera).
    public var focalLength: Float
    /// Image width divided by height (16/9 landscape, 9/16 portrait).
    public var aspectRatio: Float
    /// Where the action's bounding box sits in the room the frame leaves, 0…1 on each axis
    /// (0 = left/top, 1 = right/bottom).
    public var placement: SIMD2<Float>
    /// Border kept free on every side, as a fraction of the frame.
    public var margin: Float

    /// A camera with the given properties.
    public init(azimuth: Float, pitch: Float = 0, roll: Float = 0, distance: Float = 5,
                focalLength: Float = 1.2, aspectRatio: Float = 16.0 / 9.0,
                placement: SIMD2<Float> = SIMD2(0.5, 0.5), margin: Float = 0.04) {
        self.azimuth = azimuth
        self.pitch = pitch
        self.roll = roll
        self.distance = distance
        self.focalLength = focalLength
        self.aspectRatio = aspectRatio
        self.placement = placement
        self.margin = margin
    }

    /// The camera that films the mirror image of this camera's view (for a mirrored,
    /// left-handed copy of a clip): azimuth π − azimuth, roll negated, placement flipped.
    public var mirrored: SyntheticCamera {
        var camera = self
        camera.azimuth = .pi - azimuth
        camera.roll = -roll
        camera.placement.x = 1 - placement.x
        return camera
    }
}

/// The projection of world points through a `SyntheticCamera` onto normalised image
/// coordinates (origin top-left, x in widths, y in heights).
struct SyntheticProjection {
    let camera: SyntheticCamera
    /// The world point the camera looks at.
    let target: SIMD3<Float>
    /// Zoom applied after the lens so everything fits, and the offset that places it.
    private(set) var zoom: Float = 1
    private(set) var offset: SIMD2<Float> = SIMD2(0.5, 0.5)

    init(camera: SyntheticCamera, target: SIMD3<Float>) {
        self.camera = camera
        self.target = target
    }

    /// Camera-space position of `point`: (right, up, depth along the view).
    func cameraSpace(_ point: SIMD3<Float>) -> SIMD3<Float> {
        let q = point - target
        let ca = cos(camera.azimuth), sa = sin(camera.azimuth)
        let a = q.x * ca + q.z * sa
        let c = -q.x * sa + q.z * ca
        let cp = cos(camera.pitch), sp = sin(camera.pitch)
        let b = q.y * cp - c * sp
        let depth = camera.distance - (q.y * sp + c * cp)
        let cr = cos(camera.roll), sr = sin(camera.roll)
        return SIMD3(a * cr - b * sr, a * sr + b * cr, depth)
    }

    /// The lens image of `point` relative to the frame centre, before zoom and placement.
    func lens(_ point: SIMD3<Float>) -> SIMD2<Float> {
        let p = cameraSpace(point)
        let depth = max(p.z, 0.2)
        return SIMD2(camera.focalLength * p.x / depth / camera.aspectRatio, -camera.focalLength * p.y / depth)
    }

    /// Chooses zoom and offset so that every lens point of `points` lies inside the frame
    /// with the camera's margin, at the camera's placement.
    mutating func fit(lensPoints points: [SIMD2<Float>]) {
        guard let first = points.first else { return }
        var low = first, high = first
        for p in points {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        let room = SIMD2<Float>(repeating: 1 - 2 * camera.margin)
        let extent = pointwiseMax(high - low, SIMD2(repeating: 1e-6))
        zoom = min(1, (room / extent).min())
        let free = room - extent * zoom
        offset = SIMD2(repeating: camera.margin) - low * zoom + camera.placement * free
    }

    /// Normalised image coordinates of a lens point.
    func image(ofLens point: SIMD2<Float>) -> SIMD2<Float> {
        point * zoom + offset
    }

    /// How tall (in frame heights) one metre at the target looks after zooming.
    var metreInImage: Float { camera.focalLength / camera.distance * zoom }
}
