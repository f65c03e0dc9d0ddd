import CoachModels

/// One finished action-classifier training iteration as a checkpoint stores it.
typealias ActionIterationRecord = IterationRecord

/// The state of an interrupted action-classifier training run (see `TrainingCheckpoint`), a
/// Coach model file of task `action-classifier-checkpoint`.
typealias ActionClassifierCheckpoint = TrainingCheckpoint<ActionClassifierTrainingConfiguration>

extension ActionClassifierTrainingConfiguration: CheckpointableConfiguration {
    static var checkpointTask: ModelTask { "action-classifier-checkpoint" }
    static var checkpointKind: String { "action-classifier" }
}

extension ActionClassifierTrainingConfiguration: PoseLoopConfiguration {}
