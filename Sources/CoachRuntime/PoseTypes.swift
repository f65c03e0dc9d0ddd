// The pose values an app hands to CoachRuntime's classifiers, re-exported so `import CoachRuntime`
// is enough to use them.
@_exported import struct CoachData.Keypoint
@_exported import struct CoachData.PoseFrame
@_exported import struct CoachData.PoseSequence
@_exported import struct CoachData.PoseWindow
@_exported import enum CoachData.Chirality
@_exported import enum CoachData.KeypointOrigin
@_exported import struct CoachData.JointSet
@_exported import struct CoachData.PoseSource
