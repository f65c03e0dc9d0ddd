extension PoseWindow {
    /// A one-frame window holding `keypoints` (one per joint; nil where not detected), the unit a
    /// hand-pose classifier sees, so single poses share the windows' augmentations and encodings.
    public init(keypoints: [Keypoint?], hasDepth: Bool, chirality: Chirality? = nil) {
        self.init(frameCount: 1, jointCount: max(keypoints.count, 1), hasDepth: hasDepth, chirality: chirality)
        for (joint, keypoint) in keypoints.enumerated() { self[0, joint] = keypoint }
    }

    /// A one-frame window of `pose` (see `init(keypoints:hasDepth:chirality:)`).
    public init(pose: SinglePose, hasDepth: Bool) {
        self.init(keypoints: pose.keypoints, hasDepth: hasDepth, chirality: pose.chirality)
    }
}
