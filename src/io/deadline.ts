// The time bound lives in core (ledger parsing checks it too); io's long loops import it from here.
export { DeadlineError, checkDeadline, withDeadline } from "../core/deadline.ts";
