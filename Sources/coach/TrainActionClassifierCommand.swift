import ArgumentParser
import CoachData
import CoachModels
import CoachTraining
import Foundation

/// `coach train action-classifier`: trains a body- or hand-pose action classifier.
struct TrainActionClassifierCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "action-classifier",
        abstract: "Train an action classifier from labeled pose sequences (body, hand or custom joints).",
        discussion: """
        The data is pose clips (FORMATS.md §3), labeled in one of three ways:
          --data DIR            a folder per class: DIR/<label>/<clip>.csv|json
                                (or DIR/train/<label>/… with validation/
                                and/or test/ splits: train/ trains,
                                validation/ validates, test/ is for
                                coach evaluate MODEL --data DIR)
          --data TABLE.csv      one table with 'sequence' and 'label' columns
          --annotations FILE    Create ML action annotations (CSV with
                                file,label,start,end, or JSON); a clip may
                                have several labeled segments

        Training cuts windows of --prediction-window frames (after resampling
        to --frame-rate) from within each labeled segment. A segment shorter
        than the window is padded with zero poses, as Apple's Action & Vision
        app does. Include a background class ('other', 'none', 'background' or
        'negative') of ordinary movement so the model can say "none of these".
        A dataset report comes first, then progress (windows/s, ETA) and one
        line per iteration; early stopping keeps the best validation weights.

        Validation holds out 10% of each class's clips (whole clips), or takes
        clips of their own: --validation-data DIR|TABLE.csv (or
        --validation-annotations FILE). Record those from other people or
        sessions than the training clips, and early stopping and the head's
        share are judged as the model will be used; every training clip trains.

        Joints named as body18's or hand21's, at least half of that set and no
        other names, are that set with the rest never detected (sports
        annotations without neck, eyes or ears; depth-sensor skeletons).

        The model is an ensemble: each member is a network (a graph network for
        body18 and hand21 joints, a temporal one for custom joints) and a
        random-convolution head (MiniRocket's transform of the joints' positions
        and velocities and of the bones' vectors, then a logistic regression)
        mixed at a share chosen on the validation clips. Custom joints' bones
        are found in the training poses: the spanning tree of the joint pairs
        whose distance varies least (listed when training). --ensemble
        (default 2) members are trained from seeds s, s + 1000, … and their
        probabilities averaged; --ensemble 1 trains one. With two or more cores
        (COACH_THREADS) the members train side by side, one core each, which
        gives the same model sooner than one after the other on all cores.

        After every iteration a checkpoint is written next to the output
        (OUTPUT.checkpoint.h5; later ensemble members write
        OUTPUT.checkpoint.member2.h5, …). If training is interrupted, run the same
        command with --resume to continue exactly where it stopped. The same
        data, options and --seed give a byte-identical model file.

        Augmentations (names for --augment, comma-separated, 'all' or 'none';
        the default is 'default': interpolate, drop, jitter, scale, rotate,
        occlude, the ones that keep every action's label):
          flip         mirror left-right, swapping left and right joints
                       (only when mirrored actions keep their label, as
                       throws do: then it teaches left-handed players from
                       right-handed ones; not when a swipe left mirrored
                       is another class, swipe right)
          rotate       rotate poses by up to ±15° (poses with z also turn up to
                       ±15° about the vertical and the horizontal axis)
          translate    shift poses, drifting across the window (camera pan)
          scale        stretch x and y by up to ±15% each
          jitter       add keypoint noise (2% of the pose's size)
          interpolate  play motions 0.8–1.25× as fast (time warp)
          drop         skip random frames (a detector missing frames)
          occlude      hide joints for the whole window, a stretch or single
                       frames, in about 4× as many windows as the data's own
                       detector misses keypoints (none when it misses none)
          proportions  lengthen or shorten each bone by up to ±10% (both sides
                       alike), as another person's build would (body18 and
                       hand21 only: other joint sets have no known bones)

        Examples:
          coach train action-classifier --annotations throws/annotations.csv \\
              --output throws.h5 --seed 1
          coach train action-classifier --data natops/train --output natops.h5
          coach train action-classifier --data gym/monday --output gym.h5 \\
              --validation-data gym/tuesday-new-people
          coach train action-classifier --data fingertips.csv \\
              --prediction-window 16 --output gestures.h5
          coach train action-classifier --annotations throws/annotations.csv \\
              --output throws.h5 --resume

        Over many processes or machines (Open MPI), each minibatch is split
        among the ranks and their gradients summed in rank order; the
        random-convolution head's features are shared too. A run on N ranks
        gives the same bytes every time (N = 1: those of one process):
          mpirun -np 2 coach train action-classifier --data natops/train \\
                --output natops.h5
        """)

    @OptionGroup var options: ActionTrainingOptions

    func validate() throws { try options.validate() }

    func run() throws {
        try reportingErrors { try options.train(handJointsOnly: false) }
    }
}
