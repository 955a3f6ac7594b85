/**
 * What the client of an upload can do about a file the server rejected, by its code: the HTTP
 * counterpart of the CLI's `rejectionHint` (src/cli/ingest-command.ts), in terms of the upload's
 * `options` part instead of flags. The inspector's library view shows it under the reason.
 */
export function uploadHint(code: string | undefined): string {
  switch (code) {
    case 'ENCRYPTED':
      return 'the file is password-protected: upload it again with {"parseOptions":{"password":"..."}} in the options part (PDF), or upload a copy without the password';
    case 'UNSUPPORTED':
      return 'Groundwork cannot read this format: convert the file (to PDF, DOCX, HTML, Markdown or text) and upload that';
    case 'CORRUPT':
      return 'the file is damaged or truncated: open and re-save it, or upload a fresh copy';
    case 'EMPTY':
      return 'no text was found in it: if it is a scan, upload it again with {"parseOptions":{"ocr":"on"}}; otherwise there is nothing to index';
    case 'TOO_LARGE':
    case 'LIMIT_EXCEEDED':
    case 'TIMEOUT':
      return 'the file is over one of the server\'s safety limits (the reason names it): if you trust the file, whoever runs the server can raise that limit';
    case 'CRASHED':
      return 'the parser crashed on this file (a fault of Groundwork or a library it uses, not proof the file is damaged): please report it';
    case 'INVALID_OPTIONS':
      return 'the options sent with the upload were refused: fix what the reason names and upload it again';
    default:
      return 'the upload could not be read back: upload it again';
  }
}
