import ArgumentParser
import CoachData

/// `coach train hand-action-classifier`: the action classifier on hand poses (hand21).
struct TrainHandActionClassifierCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-action-classifier",
        abstract: "Train a hand-action classifier from labeled hand-pose sequences (21 hand joints).",
        discussion: """
        The action classifier on hand poses: Vision's 21 hand joints (or some of
        them, such as indexTip alone), windows of --prediction-window frames
        (default 45) at --frame-rate (default 30), as Create ML's hand-action
        template. The data and options are those of `coach train
        action-classifier` (FORMATS.md §3): clip files in a folder per class
        (or train/, validation/ and test/ splits of such folders), a table
        CSV with 'sequence' and 'label' columns, or Create ML
        annotations. Clips may say which hand they show (a 'chirality' column
        or JSON field: left, right or unknown); `flip` augmentation mirrors a
        clip and flips its chirality.

        --chirality says how the model uses the hand: ignore (default: a
        mirrored motion may be another class, as clockwise and counter-
        clockwise circles are), mirror (left hands mirrored to right ones, so
        right-hand clips teach both hands), or input (the hand is given to the
        network). Apps pass each observation's chirality to ActionClassifier,
        or route the two hands to two models.

        Examples:
          coach train hand-action-classifier --data hand-actions/train \\
              --output hand-actions.h5 --augment rotate,scale,interpolate
          coach train hand-action-classifier --data fingertips.csv \\
              --prediction-window 16 --output gestures.h5
          coach evaluate hand-actions.h5 --data hand-actions/test
        """)

    @OptionGroup var options: ActionTrainingOptions

    func validate() throws { try options.validate() }

    func run() throws {
        try reportingErrors { try options.train(handJointsOnly: true) }
    }
}
