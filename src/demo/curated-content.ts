// The curated demo calendars: hand-written so every case a real portal throws at calfeed is present
// (see the demo portal section of issue 2): Unicode in several languages, an emoji title over 75 bytes,
// all-day and multi-day events, a cancelled event, events without an end, string and object
// locations, organizers with and without e-mail. Days are offsets from "today" so there are always
// upcoming events; times are wall times in Europe/Vilnius.

import type { DemoLocation } from './data.js';

export interface CalendarSpec {
  id: string | number;
  title: string;
  titleLt: string;
  description: string;
  descriptionLt: string;
  slug: string;
  organizer: { name: string; email?: string };
  events: EventSpec[];
}

export interface EventSpec {
  id: string | number;
  title: string;
  titleLt: string;
  /** Day offset from today. */
  day: number;
  /** Timed: start wall time [hour, minute]. Absent: all-day. */
  at?: [number, number];
  /** Timed: duration in minutes; absent means the portal gives no end. */
  minutes?: number;
  /** All-day: number of days (default 1). */
  days?: number;
  location?: DemoLocation;
  categories: string[];
  cancelled?: boolean;
  /** Overrides the calendar's organizer; `null` means none. */
  organizer?: { name: string; email?: string } | null;
  /** Hand-written HTML; otherwise one is composed from the title. */
  description?: string;
  image?: boolean;
  featured?: boolean;
  endAsNull?: boolean;
}

const MAIN_HALL = { name: 'Main Hall', address: 'Universiteto g. 3, 01513 Vilnius' };
const AUDITORIUM = { name: 'Science Auditorium A1', address: 'Saulėtekio al. 9, 10222 Vilnius' };
const THEATRE = { name: 'Theatre Hall „Studija“', address: 'Vilniaus g. 22, 01119 Vilnius' };
const SPORTS_CENTRE = { name: 'University Sports Centre', address: 'M. K. Čiurlionio g. 27, 03104 Vilnius' };
const READING_ROOM = { name: 'University Library, Reading Room', address: 'Universiteto g. 5, 01122 Vilnius' };
const ONLINE = 'Online (Zoom)';

const FESTIVAL_DESCRIPTION = [
  '<p>Three days of <b>hands-on science</b> for families, schools &amp; curious adults. ',
  'The festival „Erdvėlaivis Žemė“ (Spaceship Earth) fills the Main Hall with experiments, ',
  'shows and talks in Lithuanian and English.</p>',
  '<h3>Programme</h3>',
  '<ul><li><b>Day 1:</b> chemistry shows – colours, flames &amp; foam</li>',
  '<li><b>Day 2:</b> robotics workshop for pupils aged 10–16</li>',
  '<li><b>Day 3:</b> night sky talk and telescope viewing (weather permitting)</li></ul>',
  '<p>Entry is free. Groups of more than 15 people, please register at ',
  '<a href="https://portal.example.edu/science-festival">portal.example.edu/science-festival</a>.</p>',
  '<p>Lithuanian letters for the quiz: ą č ę ė į š ų ū ž. Grüße an alle Gäste!</p>',
].join('');

/** The five curated calendars. University sees all; faculty sees `science` and `42`. */
export const CURATED: CalendarSpec[] = [
  {
    id: 'science',
    slug: 'science',
    title: 'Faculty of Science',
    titleLt: 'Gamtos mokslų fakultetas',
    description: '<p>Lectures, labs &amp; open days of the Faculty of Science.</p>',
    descriptionLt: '<p>Gamtos mokslų fakulteto paskaitos, laboratorijos ir atvirų durų dienos.</p>',
    organizer: { name: 'Faculty of Science Office', email: 'science@example.edu' },
    events: [
      { id: 1001, title: 'Open Lecture: Quantum Computing for Everyone', titleLt: 'Atvira paskaita: kvantinė kompiuterija visiems', day: -45, at: [17, 0], minutes: 90, location: AUDITORIUM, categories: ['Lecture', 'Physics'], organizer: { name: 'Dr. Rūta Petrauskienė', email: 'ruta.petrauskiene@example.edu' }, image: true },
      { id: 1002, title: 'Chemistry Lab Safety Workshop', titleLt: 'Chemijos laboratorijos saugos seminaras', day: -30, at: [10, 0], minutes: 120, location: 'Room 204', categories: ['Workshop', 'Chemistry'] },
      { id: 1003, title: 'Vortrag: Über die Größe des Universums – Grüße aus Göttingen', titleLt: 'Paskaita vokiečių kalba: apie Visatos dydį', day: -12, at: [16, 0], minutes: 75, location: AUDITORIUM, categories: ['Lecture', 'Astronomy', 'Deutsch'], organizer: { name: 'Prof. Jürgen Weiß', email: 'j.weiss@example.de' } },
      { id: 1004, title: 'Science Festival „Erdvėlaivis Žemė“ – ąčęėįšųūž', titleLt: 'Mokslo festivalis „Erdvėlaivis Žemė“ – ąčęėįšųūž', day: 3, days: 3, location: MAIN_HALL, categories: ['Festival', 'Family'], organizer: { name: 'Science Festival Team' }, description: FESTIVAL_DESCRIPTION, image: true, featured: true },
      { id: 1005, title: 'PhD Defence: Machine Learning for Baltic Weather', titleLt: 'Daktaro disertacijos gynimas: mašininis mokymasis Baltijos orams', day: 9, at: [14, 0], minutes: 120, location: 'Room 101', categories: ['PhD Defence'] },
      { id: 1006, title: 'Astronomy Night at the Observatory', titleLt: 'Astronomijos naktis observatorijoje', day: 16, at: [21, 30], location: 'Observatory Roof', categories: ['Astronomy'], endAsNull: true },
      { id: 1007, title: 'Mathematics Olympiad Training', titleLt: 'Matematikos olimpiados treniruotė', day: 23, at: [15, 0], minutes: 180, location: 'Room 204', categories: ['Mathematics', 'Pupils'] },
      { id: 1008, title: 'Guest Lecture: CRISPR Gene Editing', titleLt: 'Svečio paskaita: CRISPR genų redagavimas', day: 30, at: [17, 0], minutes: 90, location: AUDITORIUM, categories: ['Lecture', 'Biology'], cancelled: true },
      { id: 1009, title: 'Biology Field Trip to the Curonian Spit', titleLt: 'Biologijos ekspedicija į Kuršių neriją', day: 44, at: [8, 0], minutes: 34 * 60, location: { name: 'Nida Field Station', address: 'Taikos g. 4, 93121 Neringa' }, categories: ['Field Trip', 'Biology'] },
      { id: 1010, title: 'Faculty Research Day', titleLt: 'Fakulteto mokslinių tyrimų diena', day: 58, location: MAIN_HALL, categories: ['Research'] },
      { id: 1011, title: 'Physics Colloquium: Dark Matter', titleLt: 'Fizikos koliokviumas: tamsioji materija', day: 72, at: [16, 0], minutes: 60, location: AUDITORIUM, categories: ['Colloquium', 'Physics'] },
      { id: 1012, title: 'Winter Lecture Series: Climate & Oceans', titleLt: 'Žiemos paskaitų ciklas: klimatas ir vandenynai', day: 97, at: [17, 0], minutes: 90, location: AUDITORIUM, categories: ['Lecture', 'Climate'] },
      { id: 1013, title: 'Summer School Registration Opens', titleLt: 'Prasideda registracija į vasaros mokyklą', day: 118, categories: ['Admissions'], organizer: null },
    ],
  },
  {
    id: 'arts-culture',
    slug: 'arts-culture',
    title: 'Arts & Culture',
    titleLt: 'Menas ir kultūra',
    description: '<p>Concerts, exhibitions, theatre &amp; film at the university.</p>',
    descriptionLt: '<p>Koncertai, parodos, teatras ir kinas universitete.</p>',
    organizer: { name: 'Culture Centre', email: 'culture@example.edu' },
    events: [
      { id: 2001, title: '🎉🎶🎭 Spring Gala 🌸🌟🎻🥂 Music, Dance & Friends 💃🕺🎤🎹🎷✨', titleLt: '🎉🎶🎭 Pavasario gala 🌸🌟🎻🥂 muzika, šokiai ir draugai 💃🕺🎤🎹🎷✨', day: 12, at: [19, 0], minutes: 180, location: THEATRE, categories: ['Concert', 'Gala'], image: true, featured: true },
      { id: 2002, title: '日本語の夕べ：書道と茶道 (Japanese Evening: Calligraphy & Tea)', titleLt: 'Japonų kalbos vakaras: kaligrafija ir arbata', day: -20, at: [18, 0], minutes: 120, location: 'Room 118, Asian Studies Centre', categories: ['Language', '日本語'] },
      { id: 2003, title: 'Choir Concert: Čiurlionis & Sibelius', titleLt: 'Choro koncertas: Čiurlionis ir Sibelius', day: -50, at: [18, 0], minutes: 90, location: MAIN_HALL, categories: ['Concert', 'Choir'] },
      { id: 2004, title: 'Exhibition Opening: Vilnius Through the Lens', titleLt: 'Parodos atidarymas: Vilnius pro objektyvą', day: -5, at: [17, 30], location: 'Gallery „Arka“', categories: ['Exhibition'] },
      { id: 2005, title: 'Exhibition: Vilnius Through the Lens', titleLt: 'Paroda: Vilnius pro objektyvą', day: -4, days: 30, location: 'Gallery „Arka“', categories: ['Exhibition'] },
      { id: 2006, title: 'Kaziukas Crafts Fair: šaukštai, verbos ir ąžuolas', titleLt: 'Kaziuko mugė: šaukštai, verbos ir ąžuolas', day: 33, days: 2, location: { name: 'Great Courtyard', address: 'Universiteto g. 3, 01513 Vilnius' }, categories: ['Fair', 'Tradition'] },
      { id: 2007, title: 'Theatre: The Seagull (Žuvėdra) by Chekhov', titleLt: 'Teatras: A. Čechovo „Žuvėdra“', day: 40, at: [19, 0], minutes: 150, location: THEATRE, categories: ['Theatre'] },
      { id: 2008, title: 'Jazz in the Courtyard', titleLt: 'Džiazas kieme', day: 55, at: [20, 0], location: 'Great Courtyard', categories: ['Concert', 'Jazz'], organizer: { name: 'Student Jazz Club' } },
      { id: 2009, title: 'Film Club: Wim Wenders – Der Himmel über Berlin', titleLt: 'Kino klubas: Wimas Wendersas – „Sparnai virš Berlyno“', day: 68, at: [18, 30], minutes: 130, location: 'Cinema Room 3', categories: ['Film', 'Deutsch'] },
      { id: 2010, title: 'Poetry Reading: Poezijos pavasaris', titleLt: 'Poezijos skaitymai: Poezijos pavasaris', day: 82, at: [18, 0], minutes: 90, location: READING_ROOM, categories: ['Literature'] },
      { id: 2011, title: 'Dance Workshop: Lithuanian Folk Dances', titleLt: 'Šokių dirbtuvės: lietuvių liaudies šokiai', day: 2, at: [17, 0], minutes: 90, location: 'Dance Studio', categories: ['Workshop', 'Dance'] },
      { id: 2012, title: 'Christmas Concert', titleLt: 'Kalėdinis koncertas', day: 110, at: [18, 0], minutes: 120, location: MAIN_HALL, categories: ['Concert'] },
    ],
  },
  {
    id: 'sports',
    slug: 'sports',
    title: 'University Sports',
    titleLt: 'Universiteto sportas',
    description: '<p>Matches, classes and tournaments for students &amp; staff.</p>',
    descriptionLt: '<p>Varžybos, treniruotės ir turnyrai studentams bei darbuotojams.</p>',
    organizer: { name: 'Sports Centre', email: 'sports@example.edu' },
    events: [
      { id: 3001, title: 'University Basketball Cup: Final', titleLt: 'Universiteto krepšinio taurė: finalas', day: 8, at: [18, 0], minutes: 120, location: SPORTS_CENTRE, categories: ['Basketball', 'Tournament'], image: true },
      { id: 3002, title: 'Morning Yoga', titleLt: 'Rytinė joga', day: -40, at: [7, 30], minutes: 60, location: 'Gym 2', categories: ['Yoga'] },
      { id: 3003, title: 'Vilnius Half Marathon – University Team', titleLt: 'Vilniaus pusmaratonis – universiteto komanda', day: 20, at: [9, 0], location: { name: 'Cathedral Square', address: 'Katedros a., 01143 Vilnius' }, categories: ['Running'] },
      { id: 3004, title: 'Swimming Lessons for Beginners', titleLt: 'Plaukimo pamokos pradedantiesiems', day: -10, at: [19, 0], minutes: 60, location: SPORTS_CENTRE, categories: ['Swimming'] },
      { id: 3005, title: 'Rowing Regatta on the Neris', titleLt: 'Irklavimo regata Neryje', day: 36, location: 'Neris riverside', categories: ['Rowing'] },
      { id: 3006, title: 'Chess Tournament (Rapid)', titleLt: 'Greitųjų šachmatų turnyras', day: 50, at: [10, 0], minutes: 480, location: 'Room 310', categories: ['Chess', 'Tournament'] },
      { id: 3007, title: 'Ski Trip to Ignalina', titleLt: 'Slidinėjimo išvyka į Ignaliną', day: 88, days: 3, location: { name: 'Lithuanian Winter Sports Centre', address: 'Sporto g. 3, 30119 Ignalina' }, categories: ['Skiing', 'Trip'] },
      { id: 3008, title: 'Football: Faculty League Match', titleLt: 'Futbolas: fakultetų lygos rungtynės', day: 63, at: [17, 0], minutes: 105, location: 'Stadium', categories: ['Football'] },
      { id: 3009, title: 'Climbing Wall Open Day', titleLt: 'Laipiojimo sienos atvirų durų diena', day: -58, at: [12, 0], minutes: 240, location: SPORTS_CENTRE, categories: ['Climbing'] },
      { id: 3010, title: 'Table Tennis Championship', titleLt: 'Stalo teniso čempionatas', day: 102, at: [10, 0], minutes: 480, location: SPORTS_CENTRE, categories: ['Table Tennis', 'Tournament'] },
      { id: 3011, title: 'Orienteering in Pavilniai Regional Park', titleLt: 'Orientavimosi sportas Pavilnių regioniniame parke', day: 115, at: [10, 0], minutes: 180, location: 'Pavilniai Regional Park', categories: ['Orienteering'] },
      { id: 3012, title: 'Sports Medicine Talk: Preventing Injuries', titleLt: 'Sporto medicinos pokalbis: kaip išvengti traumų', day: 27, at: [17, 0], minutes: 60, location: ONLINE, categories: ['Talk', 'Health', 'lecture'] },
    ],
  },
  {
    id: '7C9E6679-7425-40DE-944B-E07FC1F90AE7',
    slug: 'library',
    title: 'University Library',
    titleLt: 'Universiteto biblioteka',
    description: '<p>Workshops, tours &amp; study nights at the library.</p>',
    descriptionLt: '<p>Seminarai, ekskursijos ir mokymosi naktys bibliotekoje.</p>',
    organizer: { name: 'Library Services', email: 'library@example.edu' },
    events: [
      { id: 'lib-0001', title: 'Research Data Management Clinic', titleLt: 'Mokslinių duomenų valdymo konsultacijos', day: -35, at: [13, 0], minutes: 60, location: ONLINE, categories: ['Research', 'Workshop'] },
      { id: 'lib-0002', title: 'Library Closed: National Holiday', titleLt: 'Biblioteka nedirba: valstybinė šventė', day: 14, location: READING_ROOM, categories: ['Notice'], organizer: null },
      { id: 'lib-0003', title: 'Zotero for Beginners', titleLt: 'Zotero pradedantiesiems', day: 5, at: [11, 0], minutes: 90, location: READING_ROOM, categories: ['Workshop'] },
      { id: 'lib-0004', title: 'Rare Books: Lithuanian Incunabula Tour', titleLt: 'Retos knygos: lietuviškų inkunabulų ekskursija', day: -25, at: [15, 0], minutes: 60, location: READING_ROOM, categories: ['Tour', 'History'] },
      { id: 'lib-0005', title: 'Thesis Writing Bootcamp', titleLt: 'Baigiamųjų darbų rašymo stovykla', day: 47, days: 2, location: READING_ROOM, categories: ['Writing'] },
      { id: 'lib-0006', title: 'Open Access Week', titleLt: 'Atvirosios prieigos savaitė', day: 60, days: 7, location: READING_ROOM, categories: ['Open Access'] },
      { id: 'lib-0007', title: 'Silent Study Night', titleLt: 'Tylioji mokymosi naktis', day: 25, at: [18, 0], location: READING_ROOM, categories: ['Study'] },
      { id: 'lib-0008', title: 'Meet the Author: Ieva Simonaitytė’s Legacy', titleLt: 'Susitikimas su autore: Ievos Simonaitytės palikimas', day: 75, at: [17, 30], minutes: 90, location: READING_ROOM, categories: ['Literature', 'Talk'] },
      { id: 'lib-0009', title: 'Citation Styles Explained (APA, MLA, Chicago)', titleLt: 'Citavimo stiliai (APA, MLA, Chicago)', day: -2, at: [10, 0], minutes: 60, location: ONLINE, categories: ['Workshop', 'Writing'] },
      { id: 'lib-0010', title: 'Library Tour for International Students', titleLt: 'Bibliotekos ekskursija užsienio studentams', day: 1, at: [12, 0], minutes: 45, location: READING_ROOM, categories: ['Tour'] },
      { id: 'lib-0011', title: 'Digital Humanities Seminar', titleLt: 'Skaitmeninės humanitarikos seminaras', day: 93, at: [14, 0], minutes: 120, location: 'Room 12, Library', categories: ['Seminar'] },
    ],
  },
  {
    id: 42,
    slug: 'admissions',
    title: 'Admissions',
    titleLt: 'Priėmimas',
    description: '<p>Open days, deadlines &amp; information sessions for future students.</p>',
    descriptionLt: '<p>Atvirų durų dienos, terminai ir informaciniai renginiai būsimiems studentams.</p>',
    organizer: { name: 'Admissions Office', email: 'admissions@example.edu' },
    events: [
      { id: 4201, title: 'Open Day for Future Students', titleLt: 'Atvirų durų diena būsimiems studentams', day: 19, location: MAIN_HALL, categories: ['Open Day'], image: true },
      { id: 4202, title: 'Admissions Q&A Webinar', titleLt: 'Priėmimo klausimų ir atsakymų vebinaras', day: -15, at: [18, 0], minutes: 60, location: ONLINE, categories: ['Webinar'] },
      { id: 4203, title: 'Application Deadline: Bachelor Programmes', titleLt: 'Prašymų terminas: bakalauro studijos', day: 45, categories: ['Deadline'], organizer: null },
      { id: 4204, title: 'Campus Tour', titleLt: 'Ekskursija po universiteto miestelį', day: 6, at: [11, 0], minutes: 90, location: MAIN_HALL, categories: ['Tour'] },
      { id: 4205, title: 'Scholarship Information Session', titleLt: 'Informacinis renginys apie stipendijas', day: 26, at: [16, 0], location: 'Room 101', categories: ['Information'] },
      { id: 4206, title: 'International Admissions Fair', titleLt: 'Tarptautinė priėmimo mugė', day: 52, at: [10, 0], minutes: 31 * 60, location: MAIN_HALL, categories: ['Fair'] },
      { id: 4207, title: 'Entrance Exam: Mathematics', titleLt: 'Stojamasis egzaminas: matematika', day: 66, at: [9, 0], minutes: 180, location: 'Room 204', categories: ['Exam'] },
      { id: 4208, title: 'Results Announcement', titleLt: 'Rezultatų paskelbimas', day: 80, categories: ['Notice'] },
      { id: 4209, title: 'Welcome Week', titleLt: 'Pirmakursių savaitė', day: 105, days: 7, location: { name: 'Whole campus', address: 'Universiteto g. 3, 01513 Vilnius' }, categories: ['Orientation'] },
      { id: 4210, title: "Parents' Evening", titleLt: 'Tėvų vakaras', day: -55, at: [18, 0], minutes: 90, location: MAIN_HALL, categories: ['Information'] },
      { id: 4211, title: 'Dormitory Information Session', titleLt: 'Informacinis renginys apie bendrabučius', day: 12, at: [17, 0], minutes: 45, location: ONLINE, categories: ['Information', 'Housing'] },
    ],
  },
];

/** Ids (as strings) of the calendars the faculty organization sees: a strict subset. */
export const FACULTY_CALENDARS = new Set(['science', '42']);
