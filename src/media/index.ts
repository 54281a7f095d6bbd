/** The media feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { PicturePoolFull } from './picture-pool.js';
export { PictureRejected } from './picture-types.js';
export { PictureWorkerDown } from './picture-worker.js';
export { Pictures } from './pictures.js';
export { pictureSizeProblem } from './rules/picture-limits.js';
export { sniffPicture } from './profile-pictures.js';
export { announcesUpload, profileBodyParser } from './profile-upload.js';
export { deleteMediaIfUnreferenced, lockMedia, putMedia } from './queries.js';
export { mediaName, MediaReader, type NewMedia, parseMediaName } from './store.js';
