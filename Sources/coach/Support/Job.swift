import ArgumentParser
import Foundation
import CoachTraining

/// The processes of this run: one, or the ranks of an MPI job (`mpirun -np N coach …`).
enum Job {
    /// Starts the job's communicator; ranks other than 0 then print only their own errors.
    static func start() throws -> Communicator {
        let job = try Communicator.world()
        if !job.isRoot { Console.followerName = job.name }
        return job
    }
}

/// A command whose work is shared among the ranks of an MPI job. Under `mpirun -np N` any other
/// command runs on rank 0 alone (the others end at once, and rank 0 says so), rather than N copies
/// printing and writing the same output.
protocol JobCommand {}

extension Job {
    /// For commands that are not `JobCommand`s under a launcher: ranks other than 0 end here.
    static func keepOnlyRankZero(of command: ParsableCommand) {
        guard !(command is JobCommand), let placement = Communicator.launcherPlacement() else { return }
        if placement.rank != 0 { exit(0) }
        if placement.size.map({ $0 > 1 }) ?? true {
            let name = type(of: command).configuration.commandName ?? "this command"
            Console.warning("coach \(name) runs on one process: ranks other than 0 of this job have nothing to do and ended"
                            + " (mpirun shares the work of the train commands)")
        }
    }
}
